import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { admin, adminEnv, call, createApiKeyAs, signIn } from './accounts.js'
import { cliArgs, setUpBuiltCli } from './built-cli.js'
import { startTestVault, type TestVault } from './test-vault.js'
import { binaryCube } from './uploads.js'

/**
 * `model-vault import DIR`, run as its own process against a vault on a loopback socket, with a
 * key holding exactly the scopes it documents (read, upload, manage): what the import's test
 * files share.
 */
let cubes = 0

/** A cube no other file in these tests has: the vault would otherwise put a mesh it matches into that model. */
export const distinctCube = () => binaryCube(10 + 0.05 * cubes++)

export function writeTree(root: string, files: Record<string, Uint8Array | string>): string {
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), bytes)
  }
  return root
}

/** Collections × creators × models, each model four cubes (one in a subfolder) and a README: 5 files. */
export function libraryTree(
  collections: number,
  creators: number,
  modelsEach: number,
): Record<string, Uint8Array | string> {
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

export interface Vault {
  vault: TestVault
  env: Record<string, string>
  token: string
}

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * A scratch folder for one test file's trees and journals, and the vaults it starts, removed
 * after the file's tests. Call once at the top of a test file.
 */
export function importWorkspace() {
  setUpBuiltCli()
  const vaults: TestVault[] = []
  let work = ''
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'vault-import-'))
  })
  afterAll(async () => {
    await Promise.all(vaults.map((vault) => vault.close()))
    rmSync(work, { recursive: true, force: true })
  })
  return {
    /** The scratch folder. */
    dir: () => work,
    async newVault(): Promise<Vault> {
      const vault = await startTestVault(adminEnv)
      vaults.push(vault)
      const token = (await signIn(vault.baseUrl, admin)).access_token
      const key = (await createApiKeyAs(vault.baseUrl, token, 'import', ['read', 'upload', 'manage'])).key
      const state = mkdtempSync(join(work, 'state-'))
      return { vault, token, env: { MODEL_VAULT_URL: vault.baseUrl, MODEL_VAULT_API_KEY: key, XDG_STATE_HOME: state } }
    },
    /** Runs the CLI without blocking this process, which serves the vault; `onStart` gets the child (to kill it). */
    importCli(
      args: string[],
      env: Record<string, string>,
      onStart?: (child: ReturnType<typeof spawn>) => void,
    ): Promise<Run> {
      const child = spawn(process.execPath, cliArgs('import', ...args), {
        env: { PATH: process.env.PATH, HOME: work, ...env },
      })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
      onStart?.(child)
      return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
    },
  }
}

export const totals = async ({ vault, token }: Vault) =>
  (await call(vault.baseUrl, 'GET', '/api/v1/models/stats', { token })).body as {
    totals: { models: number; files: number }
    by_tag: { tag: string; models: number }[]
    by_collection: { name: string; models: number }[]
  }

export const modelNamed = async ({ vault, token }: Vault, name: string) => {
  const list = await call(vault.baseUrl, 'GET', `/api/v1/models?q=${encodeURIComponent(name)}`, { token })
  const summary = (list.body.items as { id: string; name: string }[]).find((model) => model.name === name)
  return summary && (await call(vault.baseUrl, 'GET', `/api/v1/models/${summary.id}`, { token })).body
}

export const requestsTo = (vault: TestVault) => vault.logs.filter((line) => line.msg === 'request').length

/** Hundreds of uploads on a shared 2-core machine take a minute or more; the throughput itself is benchmarked in scripts/bench/folder-import.ts. */
export const slow = { timeout: 900_000 }

/** A loopback port nothing listens on (fetch refuses the well-known "discard" port 9 outright). */
export async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}
