/**
 * How the request thread fares while a hostile file is read: health latency (p50, p99, max over
 * back-to-back requests) during the ingest of a grid 3MF, with the file read on the request
 * thread (as before issue 12) and in the worker pool. Figures go into docs/reliability.md.
 *
 *   npx tsx scripts/bench/extract-off-thread.ts [gridSide=300]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import { createNodeDeps } from '../../src/adapters/node/node-deps.js'
import { createApp } from '../../src/app.js'
import { ensureFirstSuperuser } from '../../src/core/accounts/first-superuser.js'
import { streamOf } from '../../src/core/blobs/put-content-addressed.js'
import { parseConfig } from '../../src/core/config/config.js'
import { createInThreadExtractor } from '../../src/core/ingest/extractor.js'
import { registerUpload, storeUpload } from '../../src/core/ingest/ingest.js'
import { createJsonLogger } from '../../src/core/runtime/logger.js'
import { gridThreeMf } from '../../test/support/hostile-files.js'

type Mode = 'request thread' | 'worker pool'

async function measure(mode: Mode, file: Uint8Array) {
  const dataDir = await mkdtemp(join(tmpdir(), 'vault-bench-'))
  const config = parseConfig({
    VAULT_DATA_DIR: dataDir,
    VAULT_DATABASE_URL: `sqlite:${dataDir}/db/vault.sqlite`,
    VAULT_EXTRACT_WORKERS: '1',
    VAULT_EXTRACT_TIMEOUT_MS: '3600000',
  })
  const logger = createJsonLogger(() => {}, { level: 'error' })
  const service = { name: 'model-vault', version: 'bench', instanceId: 'bench', startedAt: new Date().toISOString() }
  const { deps, close } = await createNodeDeps(config, { logger, service })
  await ensureFirstSuperuser(deps, logger, { username: 'bench', password: 'bench-password-long' })
  const user = await deps.database.db.selectFrom('users').select('id').executeTakeFirstOrThrow()
  if (mode === 'request thread') deps.extractStoredFile = createInThreadExtractor(deps.blobs)
  const ingest = async (name: string, bytes: Uint8Array) =>
    registerUpload(deps, await storeUpload(deps, streamOf(bytes), Number.MAX_SAFE_INTEGER), {
      filename: name,
      uploadedBy: user.id,
    })
  // Starts the reader thread, so what follows measures reading only.
  await ingest('warm-up.obj', new TextEncoder().encode('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'))

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: createApp(deps).fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started))
  })
  const { port } = server.address() as { port: number }
  let settled = false
  const started = performance.now()
  const work = ingest('grid.3mf', file).finally(() => {
    settled = true
  })
  const latencies: number[] = []
  while (!settled) {
    const sent = performance.now()
    await (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).arrayBuffer()
    latencies.push(performance.now() - sent)
  }
  const result = await work
  const readingMs = performance.now() - started
  await new Promise((resolve) => server.close(resolve))
  await close()
  await rm(dataDir, { recursive: true, force: true })
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  console.log(
    `${mode}: ingest ${readingMs.toFixed(0)} ms (${result.file.metadata.mesh ? 'read' : 'opaque'}), ` +
      `${latencies.length} health requests, p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, ` +
      `max ${(latencies.at(-1) ?? 0).toFixed(1)} ms`,
  )
}

const side = Number(process.argv[2] ?? 300)
const file = gridThreeMf(side)
console.log(`grid 3MF: ${2 * side * side} triangles, ${file.length} bytes`)
for (const mode of ['request thread', 'worker pool'] as const) await measure(mode, file)
