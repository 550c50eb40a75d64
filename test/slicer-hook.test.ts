import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, createApiKeyAs, newAccount, signIn } from './support/accounts.js'
import { cliArgs, setUpBuiltCli } from './support/built-cli.js'
import { SHAPES } from './support/prusa-slicer.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

setUpBuiltCli()

/**
 * The shipped post-processing hook, run by the real PrusaSlicer (`--post-process`, as the
 * "Post-processing scripts" setting does): the slicer runs `$SHELL -c '<script line> <G-code path>'`
 * with SLIC3R_PP_OUTPUT_NAME set to the final name, and fails the export when the script exits
 * non-zero, showing its standard error. And the same upload as `model-vault upload`.
 */
const hook = resolve('scripts/slicer-hook/model-vault-upload.sh')
/** Nothing listens here: the vault is down. */
const downUrl = 'http://127.0.0.1:9'

let vault: TestVault
let apiKey: string
let dir: string
let configFile: string

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  const adminToken = (await signIn(vault.baseUrl, admin)).access_token
  apiKey = (await createApiKeyAs(vault.baseUrl, (await newAccount(vault.baseUrl, adminToken)).token)).key
  dir = mkdtempSync(join(tmpdir(), 'vault-hook-'))
  configFile = join(dir, 'hook.env')
  writeFileSync(configFile, `# model-vault hook\nMODEL_VAULT_URL="${vault.baseUrl}/"\nMODEL_VAULT_API_KEY=${apiKey}\n`)
})
afterAll(async () => vault?.close())

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** Runs a program without blocking the vault, which answers in this very process. */
function run(program: string, args: string[], env: Record<string, string>): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MODEL_VAULT_')))
  return new Promise((done) => {
    execFile(program, args, { env: { ...clean, ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

/** `prusa-slicer --export-gcode box.stl --post-process "<hook line>" -o <dir>/<name>`. */
const slice = (name: string, hookLine: string, env: Record<string, string>) =>
  run(
    'prusa-slicer',
    ['--export-gcode', join(SHAPES, 'box.stl'), '--post-process', hookLine, '-o', join(dir, name)],
    env,
  )

const storedNamed = (name: string) =>
  vault.deps.database.db.selectFrom('files').select('id').where('original_name', '=', name).execute()

describe('the post-processing hook under the real PrusaSlicer', () => {
  it('stores the G-code under its final name, configured by the config file; slicing twice stores one file', async () => {
    const first = await slice('Box-final.gcode', hook, { MODEL_VAULT_HOOK_CONFIG: configFile })
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('model-vault: stored Box-final.gcode in the vault')
    // A second later: the slicer's time stamp differs, the rest does not.
    await new Promise((resolve) => setTimeout(resolve, 1100))
    const again = await slice('Box-final.gcode', hook, { MODEL_VAULT_HOOK_CONFIG: configFile })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain('model-vault: Box-final.gcode is already in the vault; nothing new stored')
    expect(await storedNamed('Box-final.gcode')).toHaveLength(1)
  })

  it('lets the slice succeed when the vault is down, saying so; with --strict the slice fails', async () => {
    const env = { MODEL_VAULT_URL: downUrl, MODEL_VAULT_API_KEY: apiKey, MODEL_VAULT_TIMEOUT: '5' }
    const down = await slice('Box-offline.gcode', hook, env)
    expect(down.code, down.stderr).toBe(0)
    expect(down.stdout).toMatch(/model-vault: network error, Box-offline\.gcode skipped: .*(refused|connect)/i)
    expect(existsSync(join(dir, 'Box-offline.gcode'))).toBe(true)

    const strict = await slice('Box-strict.gcode', `${hook} --strict`, env)
    expect(strict.code).not.toBe(0)
    expect(`${strict.stdout}${strict.stderr}`).toContain('model-vault: network error, Box-strict.gcode skipped')
  })

  it('keeps a final name with apostrophes, semicolons and commas as it is', async () => {
    const gcode = join(dir, 'odd.gcode')
    writeFileSync(gcode, 'G28\nG1 X5 Y5 ; odd name\n')
    const name = "Box 'v2'; final, 0.2mm.gcode"
    const stored = await run(hook, [gcode], {
      MODEL_VAULT_URL: vault.baseUrl,
      MODEL_VAULT_API_KEY: apiKey,
      SLIC3R_PP_OUTPUT_NAME: `/media/sd/${name}`,
    })
    expect(stored.stdout, stored.stderr).toBe(`model-vault: stored ${name} in the vault\n`)
    expect(await storedNamed(name)).toHaveLength(1)
  })

  it('fails the slice with the vault’s reason when the key is refused, and when not set up', async () => {
    const refused = await run(hook, [join(dir, 'Box-final.gcode')], {
      MODEL_VAULT_URL: vault.baseUrl,
      MODEL_VAULT_API_KEY: 'mvk_revoked_or_mistyped_key_0000000000',
      SLIC3R_PP_OUTPUT_NAME: 'Refused.gcode',
    })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^model-vault: the vault refused Refused\.gcode: HTTP 401: .+/)
    const unset = await run(hook, [join(dir, 'Box-final.gcode')], { MODEL_VAULT_HOOK_CONFIG: join(dir, 'none.env') })
    expect(unset.code).toBe(2)
    expect(unset.stderr).toContain('not set up')
  })
})

describe('model-vault upload', () => {
  const cli = (args: string[], env: Record<string, string>) => run(process.execPath, cliArgs('upload', ...args), env)

  it('uploads as the hook does: the same name rule, dedup with the hook’s upload, the same outcome lines', async () => {
    // The G-code the hook stored, named by the slicer's variable: already in the vault.
    const same = await cli([join(dir, 'Box-final.gcode')], {
      MODEL_VAULT_HOOK_CONFIG: configFile,
      SLIC3R_PP_OUTPUT_NAME: join(dir, 'Box-final.gcode'),
    })
    expect(same.code, same.stderr).toBe(0)
    expect(same.stdout).toBe('model-vault: Box-final.gcode is already in the vault; nothing new stored\n')

    const other = join(dir, 'other.gcode')
    writeFileSync(other, 'G28\nG1 X10 Y10\n')
    const stored = await cli(['--name', 'Named by hand.gcode', other], {
      MODEL_VAULT_URL: vault.baseUrl,
      MODEL_VAULT_API_KEY: apiKey,
    })
    expect(stored.stdout).toBe('model-vault: stored Named by hand.gcode in the vault\n')
    expect(await storedNamed('Named by hand.gcode')).toHaveLength(1)
  })

  it('skips when the vault is down (exit 0), fails with --strict', async () => {
    const env = { MODEL_VAULT_URL: downUrl, MODEL_VAULT_API_KEY: apiKey }
    const down = await cli([join(dir, 'Box-final.gcode')], env)
    expect(down.code).toBe(0)
    expect(down.stdout).toMatch(/^model-vault: network error, Box-final\.gcode skipped: /)
    const strict = await cli(['--strict', join(dir, 'Box-final.gcode')], env)
    expect(strict.code).toBe(1)
    expect(strict.stderr).toMatch(/^model-vault: network error, Box-final\.gcode skipped: /)
  })
})
