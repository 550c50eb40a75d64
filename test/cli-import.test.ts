import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, createApiKeyAs, signIn } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, putRaw } from './support/uploads.js'

/**
 * `model-vault import DIR`, run as its own process against a vault on a loopback socket, with a
 * key holding exactly the scopes it documents (read, upload, manage).
 */
const vaults: TestVault[] = []
let work: string
let cubes = 0

/** A cube no other file in these tests has: the vault would otherwise put a mesh it matches into that model. */
const distinctCube = () => binaryCube(10 + 0.05 * cubes++)

function writeTree(root: string, files: Record<string, Uint8Array | string>): string {
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), bytes)
  }
  return root
}

/** Collections × creators × models, each model four cubes (one in a subfolder) and a README: 5 files. */
function libraryTree(collections: number, creators: number, modelsEach: number): Record<string, Uint8Array | string> {
  const files: Record<string, Uint8Array | string> = {}
  for (let c = 1; c <= collections; c++)
    for (let k = 1; k <= creators; k++)
      for (let m = 1; m <= modelsEach; m++) {
        const model = `Collection ${c}/Maker ${k}/Model ${c}-${k}-${m}`
        for (const part of ['base', 'lid', 'hinge']) files[`${model}/${part}.stl`] = distinctCube()
        files[`${model}/extras/spare.stl`] = distinctCube()
        files[`${model}/README.md`] = `# Model ${c}-${k}-${m}\n`
      }
  return files
}

interface Vault {
  vault: TestVault
  env: Record<string, string>
  token: string
}

async function newVault(): Promise<Vault> {
  const vault = await startTestVault(adminEnv)
  vaults.push(vault)
  const token = (await signIn(vault.baseUrl, admin)).access_token
  const key = (await createApiKeyAs(vault.baseUrl, token, 'import', ['read', 'upload', 'manage'])).key
  const state = mkdtempSync(join(work, 'state-'))
  return { vault, token, env: { MODEL_VAULT_URL: vault.baseUrl, MODEL_VAULT_API_KEY: key, XDG_STATE_HOME: state } }
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI without blocking this process, which serves the vault; `onStart` gets the child (to kill it). */
function importCli(
  args: string[],
  env: Record<string, string>,
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/adapters/node/cli.ts', 'import', ...args], {
    env: { PATH: process.env.PATH, HOME: work, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  onStart?.(child)
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
}

const totals = async ({ vault, token }: Vault) =>
  (await call(vault.baseUrl, 'GET', '/api/v1/models/stats', { token })).body as {
    totals: { models: number; files: number }
    by_tag: { tag: string; models: number }[]
    by_collection: { name: string; models: number }[]
  }

const modelNamed = async ({ vault, token }: Vault, name: string) => {
  const list = await call(vault.baseUrl, 'GET', `/api/v1/models?q=${encodeURIComponent(name)}`, { token })
  const summary = (list.body.items as { id: string; name: string }[]).find((model) => model.name === name)
  return summary && (await call(vault.baseUrl, 'GET', `/api/v1/models/${summary.id}`, { token })).body
}

const requestsTo = (vault: TestVault) => vault.logs.filter((line) => line.msg === 'request').length

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'vault-import-'))
})
afterAll(async () => {
  await Promise.all(vaults.map((vault) => vault.close()))
  rmSync(work, { recursive: true, force: true })
})

/** Hundreds of uploads on a shared 2-core machine take a minute or more; the throughput itself is benchmarked in scripts/bench/folder-import.ts. */
const slow = { timeout: 900_000 }

/** A loopback port nothing listens on (fetch refuses the well-known "discard" port 9 outright). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('model-vault import of a 500-file tree with {collection}/{creator}/{model}', slow, () => {
  let target: Vault
  let tree: string
  const template = ['--template', '{collection}/{creator}/{model}']
  beforeAll(async () => {
    target = await newVault()
    tree = writeTree(join(work, 'library'), {
      ...libraryTree(4, 5, 5),
      'Collection 1/loose-bracket.stl': distinctCube(),
      'Collection 1/loose-bracket.jpg': 'not really a picture',
      'Collection 1/notes.txt': 'belongs to no model',
      '.hidden/secret.stl': distinctCube(),
      'Collection 2/__MACOSX/._base.stl': 'resource fork',
      'Collection 2/.DS_Store': 'finder',
    })
    symlinkSync(join(tree, 'Collection 1'), join(tree, 'Collection 3', 'link-to-1'))
  })

  it('--dry-run prints every model with its files, collections and tags, and stores nothing', async () => {
    const before = requestsTo(target.vault)
    const run = await importCli([...template, '--dry-run', tree], target.env)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('Model 1-2-3  (Collection 1/Maker 2/Model 1-2-3)')
    expect(run.stdout).toContain('  collections: Collection 1; tags: creator:Maker 2')
    expect(run.stdout).toContain('  Collection 1/Maker 2/Model 1-2-3/extras/spare.stl')
    expect(run.stdout).toContain('loose-bracket  (Collection 1/loose-bracket.stl)')
    expect(run.stdout).toMatch(/Collection 1\/notes\.txt: a picture, document or other file outside any model folder/)
    expect(run.stdout).toContain('Collection 3/link-to-1: a symbolic link: links are not followed')
    expect(run.stdout).not.toMatch(/secret\.stl|__MACOSX|DS_Store/)
    expect(run.stdout).toMatch(/Plan: 101 models, 502 files \(.+\), 2 skipped\. --dry-run: nothing was uploaded\./)
    expect(requestsTo(target.vault)).toBe(before)
    expect((await totals(target)).totals.models).toBe(0)
  })

  it('stores one model per model folder, named after it, with its collection and creator tag', async () => {
    const run = await importCli([...template, tree], target.env)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/Models: 101 created, 0 joined, 0 from an earlier run\. Files: 502 uploaded/)
    const stats = await totals(target)
    expect(stats.totals).toMatchObject({ models: 101, files: 502 })
    expect(stats.by_collection.map(({ name, models }) => [name, models]).sort()).toEqual([
      ['Collection 1', 26],
      ['Collection 2', 25],
      ['Collection 3', 25],
      ['Collection 4', 25],
    ])
    expect(stats.by_tag.find((tag) => tag.tag === 'creator:Maker 5')?.models).toBe(20)
    const model = await modelNamed(target, 'Model 4-5-5')
    expect(model.tags).toEqual(['creator:Maker 5'])
    expect(model.collections.map((collection: { name: string }) => collection.name)).toEqual(['Collection 4'])
    expect(model.files.map((file: { name: string }) => file.name).sort()).toEqual([
      'README.md',
      'base.stl',
      'hinge.stl',
      'lid.stl',
      'spare.stl',
    ])
    const loose = await modelNamed(target, 'loose-bracket')
    expect(loose.files.map((file: { name: string }) => file.name).sort()).toEqual([
      'loose-bracket.jpg',
      'loose-bracket.stl',
    ])
  })

  it('sends not one request on a second run over the unchanged tree', async () => {
    const before = requestsTo(target.vault)
    const run = await importCli([...template, tree], target.env)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(
      /Models: 0 created, 0 joined, 101 from an earlier run\. Files: 0 uploaded, 0 already in the vault, 502 unchanged since the last run/,
    )
    expect(requestsTo(target.vault)).toBe(before)
  })
})

describe('model-vault import, interrupted and refused', slow, () => {
  it('finishes a run killed with SIGKILL midway when run again, with nothing doubled', async () => {
    const target = await newVault()
    const tree = writeTree(join(work, 'killed'), libraryTree(2, 3, 10))
    const journal = join(work, 'killed-journal.jsonl')
    const args = ['--template', '{collection}/{creator}/{model}', '--state', journal, tree]
    const killed = await importCli(args, target.env, (child) => {
      const poll = setInterval(() => {
        const lines = existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').length : 0
        if (lines > 100) {
          clearInterval(poll)
          child.kill('SIGKILL')
        }
      }, 20)
    })
    expect(killed.code).toBeNull()
    const partly = await totals(target)
    expect(partly.totals.files).toBeGreaterThan(90)
    expect(partly.totals.files).toBeLessThan(300)

    const again = await importCli(args, target.env)
    expect(again.code, again.stderr).toBe(0)
    const stats = await totals(target)
    expect(stats.totals).toMatchObject({ models: 60, files: 300 })
    expect(stats.by_collection.map(({ models }) => models)).toEqual([30, 30])
    const models = (await call(target.vault.baseUrl, 'GET', '/api/v1/models?limit=100', { token: target.token })).body
    expect(
      models.items.map((model: { name: string }) => model.name).every((name: string) => /^Model /.test(name)),
    ).toBe(true)
  })

  it('lists a file the vault refuses with its reason, exits 1, and joins a model the vault already holds keeping its tags', async () => {
    const target = await newVault()
    const known = distinctCube()
    const first = await putRaw(target.vault.baseUrl, target.token, 'known.stl', known)
    expect(first.status).toBe(201)
    await call(target.vault.baseUrl, 'PATCH', `/api/v1/models/${first.body.model.id}`, {
      token: target.token,
      json: { name: 'Named by hand', tags: ['keep-me'] },
    })
    const tree = writeTree(join(work, 'refused'), {
      'Maker/Known/known.stl': known,
      'Maker/Known/more.stl': distinctCube(),
      'Maker/Broken/empty.stl': new Uint8Array(0),
      'Maker/Broken/fine.stl': distinctCube(),
    })
    const state = join(work, 'refused-journal.jsonl')
    const run = await importCli(['--template', '{creator}/{model}', '--state', state, tree], target.env)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/Failed \(1\):\n {2}Maker\/Broken\/empty\.stl: HTTP 422: .*empty/)
    expect(readFileSync(join(work, 'refused-journal.failures.txt'), 'utf8')).toMatch(
      /^Maker\/Broken\/empty\.stl\tHTTP 422/,
    )
    const joined = await modelNamed(target, 'Named by hand')
    expect(joined.tags).toEqual(['creator:Maker', 'keep-me'])
    expect(joined.files).toHaveLength(2)
    expect((await modelNamed(target, 'Broken')).files.map((file: { name: string }) => file.name)).toEqual(['fine.stl'])

    const retried = await importCli(['--template', '{creator}/{model}', '--state', state, tree], target.env)
    expect(retried.code).toBe(1)
    expect(retried.stdout).toMatch(
      /Files: 0 uploaded, 0 already in the vault, 3 unchanged since the last run, 0 skipped, 1 failed/,
    )
  })

  it('says why it cannot start: vault down, key refused, key without the read scope, bad options', async () => {
    const target = await newVault()
    const tree = writeTree(join(work, 'small'), { 'Thing/thing.stl': distinctCube() })
    const down = await importCli([tree], {
      ...target.env,
      MODEL_VAULT_URL: `http://127.0.0.1:${await closedPort()}`,
      MODEL_VAULT_TIMEOUT: '5',
    })
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(
      /cannot use the vault at http:\/\/127\.0\.0\.1:\d+: .*(refused|connect).*tried 4 times/i,
    )
    const badKey = await importCli([tree], {
      ...target.env,
      MODEL_VAULT_API_KEY: 'mvk_mistyped_0000000000000000000000',
    })
    expect(badKey.code).toBe(1)
    expect(badKey.stderr).toMatch(/HTTP 401: .+\(the key needs the scopes read, upload and manage\)/)
    const uploadOnly = (await createApiKeyAs(target.vault.baseUrl, target.token, 'upload-only', ['upload'])).key
    const narrow = await importCli([tree], { ...target.env, MODEL_VAULT_API_KEY: uploadOnly })
    expect(narrow.stderr).toMatch(/HTTP 403: .+\(the key needs the scopes read, upload and manage\)/)
    const template = await importCli(['--template', '{model}/{collection}', tree], target.env)
    expect(template.code).toBe(2)
    expect(template.stderr).toContain('--template: {model} must be the last segment')
    const unknown = await importCli(['--template', '{collection}/{model', tree], target.env)
    expect(unknown.stderr).toContain('unknown template segment "{model"')
    const concurrency = await importCli(['--concurrency', '0', tree], target.env)
    expect([concurrency.code, concurrency.stderr]).toEqual([
      2,
      'model-vault import: --concurrency takes a whole number from 1 to 64\n',
    ])
    const loose = writeTree(join(work, 'loose'), {
      'Prints/a.stl': distinctCube(),
      'Prints/A.png': 'picture of a',
      'Prints/b.stl': distinctCube(),
      'Prints/c.pdf': 'manual of nothing',
    })
    const perFile = await importCli(['--model-per-file', '--template', '{tag}', '--dry-run', loose], target.env)
    expect(perFile.stdout).toContain(
      'a  (Prints/a.stl)\n  collections: -; tags: Prints\n  Prints/a.stl  684 B\n  Prints/A.png',
    )
    expect(perFile.stdout).toContain('b  (Prints/b.stl)')
    expect(perFile.stdout).toMatch(
      /Prints\/c\.pdf: a picture, document or other file outside any model folder, with no mesh, G-code or CAD file/,
    )
    const missing = await importCli([join(work, 'no-such-folder')], target.env)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no folder to import')
    expect((await totals(target)).totals.files).toBe(0)
  })
})

describe('model-vault import of model folders that share a file', () => {
  it('makes one model per folder from its mesh, whatever other files they share; skips a folder with no mesh and a named pipe', async () => {
    const target = await newVault()
    const sharedConfig = '[print:shared]\nlayer_height = 0.2\n'
    const files: Record<string, Uint8Array | string> = { 'Notes only/PrusaSlicer_config.ini': sharedConfig }
    for (const name of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']) {
      files[`${name}/${name.toLowerCase()}.stl`] = distinctCube()
      // Sorts before the mesh and is the same bytes in every folder.
      files[`${name}/PrusaSlicer_config.ini`] = sharedConfig
    }
    files['Notes only/README.md'] = '# no mesh here\n'
    const tree = writeTree(join(work, 'shared-config'), files)
    execFileSync('mkfifo', [join(tree, 'Alpha', 'pipe.stl')])

    const first = await importCli([tree, '--template', '{model}'], target.env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('Models: 5 created, 0 joined')
    // The same bytes are stored once: the config belongs to the first model that sent it (a file in
    // several models is the models issue's), and every model is its own folder's.
    expect((await totals(target)).totals).toMatchObject({ models: 5, files: 6 })
    for (const name of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']) {
      const model = await modelNamed(target, name)
      expect(model.files.map((file: { name: string }) => file.name)).toContain(`${name.toLowerCase()}.stl`)
    }
    expect(first.stdout).toMatch(/Notes only\/README\.md.*no mesh, G-code or CAD file/)
    expect(first.stdout).toMatch(/Alpha\/pipe\.stl.*a named pipe \(FIFO\): only regular files are imported/)

    const before = requestsTo(target.vault)
    const again = await importCli([tree, '--template', '{model}'], target.env)
    expect(again.code, again.stderr).toBe(0)
    expect(requestsTo(target.vault)).toBe(before)
  })
})
