import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { call, createApiKeyAs } from './support/accounts.js'
import {
  closedPort,
  distinctCube,
  importWorkspace,
  libraryTree,
  modelNamed,
  requestsTo,
  slow,
  totals,
  writeTree,
} from './support/import-cli.js'
import { putRaw } from './support/uploads.js'

const workspace = importWorkspace()

describe('model-vault import, interrupted and refused', slow, () => {
  it('finishes a run killed with SIGKILL midway when run again, with nothing doubled', async () => {
    const target = await workspace.newVault()
    const tree = writeTree(join(workspace.dir(), 'killed'), libraryTree(2, 3, 10))
    const journal = join(workspace.dir(), 'killed-journal.jsonl')
    const args = ['--template', '{collection}/{creator}/{model}', '--state', journal, tree]
    const killed = await workspace.importCli(args, target.env, (child) => {
      const poll = setInterval(() => {
        const text = existsSync(journal) ? readFileSync(journal, 'utf8') : ''
        if (text.split('"file_id"').length > 100) {
          clearInterval(poll)
          child.kill('SIGKILL')
        }
      }, 20)
    })
    expect(killed.code).toBeNull()
    const partly = await totals(target)
    expect(partly.totals.files).toBeGreaterThan(90)
    expect(partly.totals.files).toBeLessThan(300)

    const again = await workspace.importCli(args, target.env)
    expect(again.code, again.stderr).toBe(0)
    const stats = await totals(target)
    expect(stats.totals).toMatchObject({ models: 60, files: 300 })
    expect(stats.by_collection.map(({ models }) => models)).toEqual([30, 30])
    const models = (await call(target.vault.baseUrl, 'GET', '/api/v1/models?limit=100', { token: target.token })).body
    expect(
      models.items.map((model: { name: string }) => model.name).every((name: string) => /^Model /.test(name)),
    ).toBe(true)
  })

  it('finds the model a run killed before its first answer was journaled made, rather than making another', async () => {
    const target = await workspace.newVault()
    const first = distinctCube()
    const tree = writeTree(join(workspace.dir(), 'cut-short'), {
      'Thing/thing.stl': first,
      'Thing/stls/more.stl': distinctCube(),
    })
    // What the killed run left: the vault made the model; the journal holds only the intent.
    const made = await putRaw(target.vault.baseUrl, target.token, 'thing.stl', first, '?model_name=Thing')
    expect(made.status).toBe(201)
    const journal = join(workspace.dir(), 'cut-short-journal.jsonl')
    const sha256 = createHash('sha256').update(first).digest('hex')
    writeFileSync(journal, `${JSON.stringify({ making: 'Thing', path: 'Thing/thing.stl', sha256 })}\n`)

    const run = await workspace.importCli(['--state', journal, tree], target.env)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(
      /Models: 0 created, 0 joined, 1 from an earlier run\. Files: 1 uploaded, 1 already in the vault/,
    )
    expect((await totals(target)).totals).toMatchObject({ models: 1, files: 2 })
    const thing = await modelNamed(target, 'Thing')
    expect(thing.files.map((file: { folder: string; name: string }) => `${file.folder}|${file.name}`).sort()).toEqual([
      'stls|more.stl',
      '|thing.stl',
    ])
    const before = requestsTo(target.vault)
    const again = await workspace.importCli(['--state', journal, tree], target.env)
    expect(again.code, again.stderr).toBe(0)
    expect(requestsTo(target.vault)).toBe(before)
  })

  it('lists a file the vault refuses with its reason, exits 1, and makes a model folder its own model though the vault holds its mesh', async () => {
    const target = await workspace.newVault()
    const known = distinctCube()
    const first = await putRaw(target.vault.baseUrl, target.token, 'known.stl', known)
    expect(first.status).toBe(201)
    await call(target.vault.baseUrl, 'PATCH', `/api/v1/models/${first.body.model.id}`, {
      token: target.token,
      json: { name: 'Named by hand', tags: ['keep-me'] },
    })
    const tree = writeTree(join(workspace.dir(), 'refused'), {
      'Maker/Known/known.stl': known,
      'Maker/Known/more.stl': distinctCube(),
      'Maker/Broken/empty.stl': new Uint8Array(0),
      'Maker/Broken/fine.stl': distinctCube(),
    })
    const state = join(workspace.dir(), 'refused-journal.jsonl')
    const run = await workspace.importCli(['--template', '{creator}/{model}', '--state', state, tree], target.env)
    expect(run.code).toBe(1)
    expect(run.stdout).toMatch(/Failed \(1\):\n {2}Maker\/Broken\/empty\.stl: HTTP 422: .*empty/)
    expect(readFileSync(join(workspace.dir(), 'refused-journal.failures.txt'), 'utf8')).toMatch(
      /^Maker\/Broken\/empty\.stl\tHTTP 422/,
    )
    // The model that held the mesh is left as it was; the folder's model holds a copy of it.
    const held = await modelNamed(target, 'Named by hand')
    expect([held.tags, held.files.length]).toEqual([['keep-me'], 1])
    const folderModel = await modelNamed(target, 'Known')
    expect(folderModel.tags).toEqual(['creator:Maker'])
    expect(folderModel.files.map((file: { name: string }) => file.name).sort()).toEqual(['known.stl', 'more.stl'])
    expect((await modelNamed(target, 'Broken')).files.map((file: { name: string }) => file.name)).toEqual(['fine.stl'])

    const retried = await workspace.importCli(['--template', '{creator}/{model}', '--state', state, tree], target.env)
    expect(retried.code).toBe(1)
    expect(retried.stdout).toMatch(
      /Files: 0 uploaded, 0 already in the vault, 3 unchanged since the last run, 0 skipped, 1 failed/,
    )
  })

  it('says why it cannot start: vault down, key refused, key without the read scope, bad options', async () => {
    const target = await workspace.newVault()
    const tree = writeTree(join(workspace.dir(), 'small'), { 'Thing/thing.stl': distinctCube() })
    const down = await workspace.importCli([tree], {
      ...target.env,
      MODEL_VAULT_URL: `http://127.0.0.1:${await closedPort()}`,
      MODEL_VAULT_TIMEOUT: '5',
    })
    expect(down.code).toBe(1)
    expect(down.stderr).toMatch(
      /cannot use the vault at http:\/\/127\.0\.0\.1:\d+: .*(refused|connect).*tried 4 times/i,
    )
    const badKey = await workspace.importCli([tree], {
      ...target.env,
      MODEL_VAULT_API_KEY: 'mvk_mistyped_0000000000000000000000',
    })
    expect(badKey.code).toBe(1)
    expect(badKey.stderr).toMatch(/HTTP 401: .+\(the key needs the scopes read, upload and manage\)/)
    const uploadOnly = (await createApiKeyAs(target.vault.baseUrl, target.token, 'upload-only', ['upload'])).key
    const narrow = await workspace.importCli([tree], { ...target.env, MODEL_VAULT_API_KEY: uploadOnly })
    expect(narrow.stderr).toMatch(/HTTP 403: .+\(the key needs the scopes read, upload and manage\)/)
    const template = await workspace.importCli(['--template', '{model}/{collection}', tree], target.env)
    expect(template.code).toBe(2)
    expect(template.stderr).toContain('--template: {model} must be the last segment')
    const unknown = await workspace.importCli(['--template', '{collection}/{model', tree], target.env)
    expect(unknown.stderr).toContain('unknown template segment "{model"')
    const json = await workspace.importCli(['--json', tree], target.env)
    expect([json.code, json.stderr]).toEqual([2, 'model-vault import: --json prints the plan: use it with --dry-run\n'])
    const concurrency = await workspace.importCli(['--concurrency', '0', tree], target.env)
    expect([concurrency.code, concurrency.stderr]).toEqual([
      2,
      'model-vault import: --concurrency takes a whole number from 1 to 64\n',
    ])
    const loose = writeTree(join(workspace.dir(), 'loose'), {
      'Prints/a.stl': distinctCube(),
      'Prints/A.png': 'picture of a',
      'Prints/b.stl': distinctCube(),
      'Prints/c.pdf': 'manual of nothing',
    })
    const perFile = await workspace.importCli(
      ['--model-per-file', '--template', '{tag}', '--dry-run', loose],
      target.env,
    )
    expect(perFile.stdout).toContain(
      'a  (Prints/a.stl)\n  collections: -; tags: Prints\n  Prints/a.stl  684 B\n  Prints/A.png',
    )
    expect(perFile.stdout).toContain('b  (Prints/b.stl)')
    expect(perFile.stdout).toMatch(
      /Prints\/c\.pdf: a picture, document or other file outside any model folder, with no mesh, G-code or CAD file/,
    )
    const missing = await workspace.importCli([join(workspace.dir(), 'no-such-folder')], target.env)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('no folder to import')
    expect((await totals(target)).totals.files).toBe(0)
  })
})
