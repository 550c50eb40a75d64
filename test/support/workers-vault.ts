import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Miniflare } from 'miniflare'
import { buildWorkers, measureWorkersBuild, type WorkersBuild } from '../../scripts/build-workers.js'
import { admin } from './accounts.js'
import { ensureBuilt, oncePerSourceState } from './built-vault.js'

export interface WorkersVault {
  /** The Worker's own HTTP listener on loopback. */
  baseUrl: string
  miniflare: Miniflare
  build: WorkersBuild
  /** Where `npm run build:workers` wrote the bundle (and esbuild's `meta.json`). */
  buildDir: string
}

/**
 * The Workers entry, bundled as `npm run build:workers` bundles it (once per source state), on the
 * real workerd runtime through Miniflare 4, with an empty in-memory D1 database and R2 bucket, the
 * static assets and the compatibility date of wrangler.example.toml. `bindings` adds `VAULT_*`
 * variables to the first superuser's.
 */
export async function startWorkersVault(bindings: Record<string, string>): Promise<WorkersVault> {
  const web = join(await ensureBuilt(), 'web')
  const buildDir = await oncePerSourceState('workers-build', async (dir) => void (await buildWorkers(dir, web)))
  const build = await measureWorkersBuild(buildDir)
  const wrangler = await readFile('wrangler.example.toml', 'utf8')
  const miniflare = new Miniflare({
    modules: true,
    scriptPath: build.bundle,
    compatibilityDate: /^compatibility_date = "(.+)"$/m.exec(wrangler)?.[1] ?? '',
    d1Databases: ['DB'],
    r2Buckets: ['BUCKET'],
    assets: {
      directory: build.assetsDir,
      binding: 'ASSETS',
      // `run_worker_first = true` of wrangler.example.toml.
      routerConfig: { has_user_worker: true, invoke_user_worker_ahead_of_assets: true },
    },
    bindings: { VAULT_ADMIN_USERNAME: admin.username, VAULT_ADMIN_PASSWORD: admin.password, ...bindings },
    // Each run starts from an empty database and bucket, in memory.
    d1Persist: false,
    r2Persist: false,
  })
  return { baseUrl: (await miniflare.ready).origin, miniflare, build, buildDir }
}
