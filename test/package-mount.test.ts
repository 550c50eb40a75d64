import { execFile, spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import packageJson from '../package.json' with { type: 'json' }
import { oncePerSourceState, untilListening } from './support/built-vault.js'
import { packVault } from './support/packed-vault.js'
import { createTestDatabase } from './support/test-database.js'
import { binaryCube } from './support/uploads.js'

const run = promisify(execFile)
const password = 'parent-app-secret-1'

/** The JavaScript code blocks of the guide at `path`, in order. */
async function guideCode(path: string): Promise<string[]> {
  const guide = await readFile(path, 'utf8')
  return [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] ?? '')
}

/**
 * A fresh parent app with the vault installed from the packed package, as a user installs it:
 * `npm pack` over the build, then `npm install` of the tarball beside hono and @hono/node-server
 * into an empty app (once per source state; both test projects share it).
 */
function installedParentApp(): Promise<string> {
  return oncePerSourceState('package-app', async (dir) => {
    const tarball = await packVault(dir)
    const app = join(dir, 'app')
    await mkdir(app)
    await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'parent-app', private: true, type: 'module' }))
    const versions = { ...packageJson.dependencies, ...packageJson.devDependencies }
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarball,
        `hono@${versions.hono}`,
        `@hono/node-server@${versions['@hono/node-server']}`,
        `typescript@${versions.typescript}`,
        `@types/node@${versions['@types/node']}`,
      ],
      { cwd: app, maxBuffer: 16 * 1024 * 1024 },
    )
  })
}

/** What `tsc` reports for the project in `dir` ('' when it type-checks). */
const typeErrors = (dir: string) =>
  run('npx', ['tsc', '-p', '.'], { cwd: dir }).then(
    () => '',
    (error: { stdout?: string }) => error.stdout ?? String(error),
  )

describe('the package, mounted by a parent Hono app', () => {
  let appDir: string
  let dataDir: string
  let database: Awaited<ReturnType<typeof createTestDatabase>>
  let parentUrl: string
  let stop: () => Promise<void>

  beforeAll(async () => {
    appDir = await mkdtemp(join(tmpdir(), 'vault-parent-'))
    const installed = join(await installedParentApp(), 'app')
    await cp(installed, appDir, { recursive: true })
    const [server, client] = await guideCode('docs/hono-mount.md')
    await writeFile(join(appDir, 'server.js'), server ?? '')
    await writeFile(join(appDir, 'client.js'), client ?? '')
    dataDir = await mkdtemp(join(tmpdir(), 'vault-parent-data-'))
    database = await createTestDatabase(dataDir)
    const child = spawn('node', ['server.js'], {
      cwd: appDir,
      env: {
        ...process.env,
        PORT: '0',
        VAULT_DATA_DIR: dataDir,
        VAULT_DATABASE_URL: database.url,
        VAULT_ADMIN_PASSWORD: password,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const exited = new Promise<void>((done) => child.on('exit', () => done()))
    // The guide's server logs the vault's JSON lines, then its own "listening on …/vault/".
    const listening = await untilListening(child, /listening on (http:\/\/[^/\s]+)\/vault\//)
    parentUrl = listening.baseUrl
    stop = async () => {
      child.kill('SIGTERM')
      await exited
    }
  }, 900_000)

  afterAll(async () => {
    await stop?.()
    await database?.drop()
    await rm(appDir, { recursive: true, force: true })
    await rm(dataDir, { recursive: true, force: true })
  })

  it('installs a model-vault command that runs as it is, by its own shebang', async () => {
    // Run directly, not through node: without `#!/usr/bin/env node` the kernel refuses it (and a shell would run it as a script).
    const { stdout } = await promisify(execFile)(join(appDir, 'node_modules/.bin/model-vault'), ['--help'])
    expect(stdout).toMatch(/^Usage: model-vault \[options\] \[command\]/)
  })

  it("serves the parent's own routes beside the vault", async () => {
    const answer = await fetch(`${parentUrl}/`)
    expect(await answer.text()).toBe('The parent app')
  })

  it('signs in, uploads and lists through the mount point, and the typed client from the guide works', async () => {
    const login = await fetch(`${parentUrl}/vault/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    })
    expect(login.status).toBe(200)
    const { access_token: token } = (await login.json()) as { access_token: string }
    const auth = { authorization: `Bearer ${token}` }

    const upload = await fetch(`${parentUrl}/vault/api/v1/ingest/benchy%20cube.stl`, {
      method: 'PUT',
      headers: auth,
      body: new Uint8Array(binaryCube()),
    })
    expect(upload.status).toBe(201)
    const list = (await (await fetch(`${parentUrl}/vault/api/v1/models`, { headers: auth })).json()) as {
      items: { name: string }[]
    }
    expect(list.items.map((model) => model.name)).toEqual(['benchy cube'])

    const { stdout } = await run('node', ['client.js'], {
      cwd: appDir,
      env: { ...process.env, VAULT_URL: `${parentUrl}/vault`, MODEL_VAULT_API_KEY: token },
    })
    expect(stdout.trim()).toBe("[ 'benchy cube' ]")
  })

  it('serves the web UI and the API reference under the mount point', async () => {
    const page = await fetch(`${parentUrl}/vault/library`, { headers: { accept: 'text/html' } })
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<base href="/vault/" />')
    const docs = await fetch(`${parentUrl}/vault/docs`)
    expect(docs.status).toBe(200)
    const document = (await (await fetch(`${parentUrl}/vault/openapi.json`)).json()) as {
      servers: { url: string }[]
    }
    expect(document.servers[0]?.url).toMatch(/\/vault$/)
    const missing = await fetch(`${parentUrl}/vault/api/v1/nothing-here`)
    expect(missing.status).toBe(404)
    expect(missing.headers.get('content-type')).toContain('application/problem+json')
  })

  it("type-checks a program against the package's declared entry points", async () => {
    await writeFile(
      join(appDir, 'check.ts'),
      [
        "import { createApp, type Deps, type BlobStore } from 'model-vault'",
        "import { createVaultClient, type components } from 'model-vault/client'",
        "import { createNodeVault, type NodeVault } from 'model-vault/node'",
        "const client = createVaultClient({ baseUrl: 'http://vault.local', token: 'mvk_x' })",
        "const { data } = await client.GET('/api/v1/models', { params: { query: { q: 'cube' } } })",
        'const names: string[] | undefined = data?.items.map((model) => model.name)',
        "type Model = components['schemas']['Model']",
        'export type { BlobStore, Deps, Model, NodeVault }',
        'export { createApp, createNodeVault, names }',
      ].join('\n'),
    )
    await writeFile(
      join(appDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true },
        files: ['check.ts'],
      }),
    )
    expect(await typeErrors(appDir)).toBe('')
    // And a wrong parameter is an error: the types are real, not `any`.
    await writeFile(
      join(appDir, 'check.ts'),
      "import { createVaultClient } from 'model-vault/client'\nawait createVaultClient({ baseUrl: '' }).GET('/api/v1/models', { params: { query: { limit: 'many' } } })\n",
    )
    expect(await typeErrors(appDir)).toMatch(
      /check\.ts\(2,\d+\): error TS2322: Type 'string' is not assignable to type 'number/,
    )
  })
})
