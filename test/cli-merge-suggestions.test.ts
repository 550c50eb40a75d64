import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, createApiKeyAs, signIn } from './support/accounts.js'
import { cliArgs, setUpBuiltCli } from './support/built-cli.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

setUpBuiltCli()

/** `model-vault models merge-suggestions`, run as its own process against a vault over loopback. */
let vault: TestVault
let token: string
let env: Record<string, string>
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
  const key = (await createApiKeyAs(vault.baseUrl, token, 'merge-check', ['read', 'manage'])).key
  env = { MODEL_VAULT_URL: vault.baseUrl, MODEL_VAULT_API_KEY: key, MODEL_VAULT_HOOK_CONFIG: '/nonexistent' }
})
afterAll(async () => vault?.close())

function cli(args: string[], stdin = '') {
  const child = spawn(process.execPath, cliArgs('models', 'merge-suggestions', ...args), {
    env: { PATH: process.env.PATH, ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdin.end(stdin)
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (status) => resolve({ status, stdout, stderr })),
  )
}

/** A model of one file, made by name as an earlier version made one per file. */
async function modelOf(name: string, file: string, bytes: Uint8Array | string): Promise<string> {
  const made = await upload(vault.baseUrl, token, file, bytes, { model_name: name })
  expect(made.status).toBe(201)
  return made.body.model.id
}

const modelCount = async () => (await call(vault.baseUrl, 'GET', '/api/v1/models/stats', { token })).body.totals.models

describe('model-vault models merge-suggestions', () => {
  it('lists the groups, merges only those confirmed, and says so; --json prints them for scripts', async () => {
    const boxA = await modelOf('Box', 'box.stl', binaryCube(71))
    const boxB = await modelOf('box', 'box-lid.stl', binaryCube(72))
    const clipMesh = await modelOf('Clip', 'clip.stl', binaryCube(73))
    const clipGcode = await modelOf('Clip print', 'clip_0.2mm_PLA.gcode', `; ${crypto.randomUUID()}\nG1 X1\n`)

    const listed = await cli([])
    expect(listed.status, listed.stderr).toBe(0)
    expect(listed.stdout).toContain('2 groups of models look like one model:')
    expect(listed.stdout).toContain('the same name')
    expect(listed.stdout).toContain("a G-code names the other's mesh")
    const json = await cli(['--json'])
    const groups = (JSON.parse(json.stdout) as { groups: { target: { id: string }; others: { id: string }[] }[] })
      .groups
    const ids = groups.map((group) => [group.target.id, ...group.others.map((model) => model.id)].sort())
    expect(ids).toEqual(expect.arrayContaining([[boxA, boxB].sort(), [clipMesh, clipGcode].sort()]))
    expect(await modelCount()).toBe(4)

    // The first group merged after "y", the second kept after "n".
    const merged = await cli(['--merge'], 'y\nn\n')
    expect(merged.status, merged.stderr).toBe(0)
    expect(merged.stdout).toContain('1 of 2 groups merged.')
    expect(await modelCount()).toBe(3)
    const left = await cli(['--json'])
    expect((JSON.parse(left.stdout) as { total: number }).total).toBe(1)
  })

  it('merges every group with --yes, and needs a key to talk to the vault', async () => {
    const merged = await cli(['--merge', '--yes'])
    expect(merged.status, merged.stderr).toBe(0)
    expect(merged.stdout).toMatch(/1 of 1 groups merged\./)
    expect((await cli([])).stdout).toContain('No models look like one another.')
    const unset = await new Promise<number | null>((resolve) =>
      spawn(process.execPath, cliArgs('models', 'merge-suggestions'), {
        env: { PATH: process.env.PATH, MODEL_VAULT_HOOK_CONFIG: '/nonexistent' },
      }).on('close', resolve),
    )
    expect(unset).toBe(2)
  })
})
