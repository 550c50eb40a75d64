import { execFile, execFileSync, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { signIn } from './support/accounts.js'
import { oncePerSourceState, untilListening } from './support/built-vault.js'
import { packVault } from './support/packed-vault.js'
import { createTestDatabase } from './support/test-database.js'
import { until } from './support/until.js'
import { binaryCube, putRaw } from './support/uploads.js'

const run = promisify(execFile)
const password = 'node-lines-secret-1'

/**
 * The Node lines the vault supports: 22 (maintenance LTS, the one CI runs this suite on) and 24
 * (active LTS, the Docker image's). Each line other than the suite's own is proven here, taken
 * from the npm registry's `node-linux-<arch>` package, which ships the binary and the headers a
 * native addon builds against.
 */
const supportedLines = { 22: '22.23.3', 24: '24.21.0' }
const arch = process.arch === 'arm64' ? 'arm64' : 'x64'
const suiteLine = Number(process.versions.node.split('.')[0])
const otherLines = ([22, 24] as const).filter((line) => line !== suiteLine)

/**
 * The packed vault installed into an empty app by `npm install`, run by that Node line itself, so
 * better-sqlite3 is built for its ABI (against the package's headers: nothing is downloaded but
 * from the npm registry). Once per source state and line.
 */
function installedWith(line: keyof typeof supportedLines): Promise<{ node: string; app: string }> {
  const paths = (dir: string) => ({
    nodeDir: resolve(dir, `node/node_modules/node-linux-${arch}`),
    node: resolve(dir, `node/node_modules/node-linux-${arch}/bin/node`),
    app: resolve(dir, 'app'),
  })
  return oncePerSourceState(`node-${line}`, async (dir) => {
    const { nodeDir, node, app } = paths(dir)
    await run('npm', [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefix',
      join(dir, 'node'),
      `node-linux-${arch}@${supportedLines[line]}`,
    ])
    const tarball = await packVault(dir)
    await mkdir(app)
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: `node-${line}-app`, private: true, type: 'module' }),
    )
    // The npm running this suite (`npm test` and `npx` say where it is): with a Node taken from the
    // registry first on PATH (as .ci/run does), `npm root -g` names that Node's folder, which has no npm.
    const npmCli =
      process.env.npm_execpath ??
      join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm/bin/npm-cli.js')
    await run(node, [npmCli, 'install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: app,
      env: { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}`, npm_config_nodedir: nodeDir },
      maxBuffer: 16 * 1024 * 1024,
    })
  }).then(paths)
}

for (const line of otherLines) {
  describe(`on Node ${line}, installed from the package`, () => {
    let node: string
    let app: string
    let baseUrl: string
    let dataDir: string
    let database: Awaited<ReturnType<typeof createTestDatabase>>
    let stop: () => Promise<number | null>

    beforeAll(async () => {
      const installed = await installedWith(line)
      node = installed.node
      app = installed.app
      dataDir = await mkdtemp(join(tmpdir(), `vault-node-${line}-`))
      database = await createTestDatabase(dataDir)
      const child = spawn(node, [join(installed.app, 'node_modules/model-vault/dist/src/adapters/node/main.js')], {
        env: {
          ...process.env,
          VAULT_DATA_DIR: dataDir,
          VAULT_DATABASE_URL: database.url,
          VAULT_PORT: '0',
          VAULT_ADMIN_PASSWORD: password,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const exitCode = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
      baseUrl = (await untilListening(child)).baseUrl
      stop = async () => {
        child.kill('SIGTERM')
        return exitCode
      }
    }, 900_000)

    afterAll(async () => {
      await database?.drop()
      // Undefined when the install itself failed: that failure is the one to read.
      if (dataDir) await rm(dataDir, { recursive: true, force: true })
    })

    it(`runs on Node ${line} itself`, () => {
      expect(execFileSync(node, ['--version'], { encoding: 'utf8' })).toMatch(new RegExp(`^v${line}\\.`))
    })

    it('signs in, stores and reads an upload (its file read in a worker thread), lists and downloads it', async () => {
      const health = await fetch(`${baseUrl}/api/v1/health`)
      expect(health.status).toBe(200)
      const { access_token } = await signIn(baseUrl, { username: 'admin', password })
      const cube = binaryCube()
      const stored = await putRaw(baseUrl, access_token, 'cube.stl', cube)
      expect(stored.status).toBe(201)
      const { file, model } = stored.body as {
        file: { id: string; metadata: { mesh?: { triangles: number } } }
        model: { id: string; analysing_files: number }
      }
      expect(file.metadata.mesh?.triangles).toBe(12)
      expect(model.analysing_files).toBe(1)
      const headers = { Authorization: `Bearer ${access_token}` }
      // Its thumbnail is rendered on a reader thread after the answer.
      const rendered = async () =>
        (
          (await (await fetch(`${baseUrl}/api/v1/models/${model.id}`, { headers })).json()) as {
            has_thumbnail: boolean
          }
        ).has_thumbnail
      await until(rendered, 'the thumbnail is rendered', { timeoutMs: 20_000, everyMs: 50 })
      const list = (await (await fetch(`${baseUrl}/api/v1/models`, { headers })).json()) as { items: { id: string }[] }
      expect(list.items.map((item) => item.id)).toEqual([model.id])
      const content = await fetch(`${baseUrl}/api/v1/files/${file.id}/content`, { headers })
      expect(new Uint8Array(await content.arrayBuffer())).toEqual(cube)
    })

    it('stops cleanly on SIGTERM', async () => {
      expect(await stop()).toBe(0)
    })

    it('installs a model-vault command that runs: its version, its help, and exit 2 for a usage error', async () => {
      // The bin as npm links it, started by its own `#!/usr/bin/env node` line with this Node first on PATH.
      const bin = join(app, 'node_modules/.bin/model-vault')
      const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}` }
      const version = await run(bin, ['--version'], { env })
      expect(version.stdout.trim()).toBe(JSON.parse(readFileSync('package.json', 'utf8')).version)
      const help = await run(bin, ['users', '--help'], { env })
      expect(help.stdout).toContain('Usage: model-vault users [options] [command]')
      const refused = await run(bin, ['frobnicate'], { env }).catch((error: { code: number; stderr: string }) => error)
      expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown command 'frobnicate'") })
    })
  })
}
