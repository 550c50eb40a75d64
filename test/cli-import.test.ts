import { execFileSync } from 'node:child_process'
import { statSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  distinctCube,
  importWorkspace,
  libraryTree,
  modelNamed,
  requestsTo,
  slow,
  totals,
  type Vault,
  writeTree,
} from './support/import-cli.js'

const workspace = importWorkspace()

describe('model-vault import of a 500-file tree with {collection}/{creator}/{model}', slow, () => {
  let target: Vault
  let tree: string
  const template = ['--template', '{collection}/{creator}/{model}']
  beforeAll(async () => {
    target = await workspace.newVault()
    tree = writeTree(join(workspace.dir(), 'library'), {
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
    const run = await workspace.importCli([...template, '--dry-run', tree], target.env)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain('Model 1-2-3  (Collection 1/Maker 2/Model 1-2-3)')
    expect(run.stdout).toContain('  collections: Collection 1; tags: creator:Maker 2')
    expect(run.stdout).toContain(
      '  description from Collection 1/Maker 2/Model 1-2-3/README.md (when the model has none)',
    )
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
    const run = await workspace.importCli([...template, tree], target.env)
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
    // Each file keeps its folder below the model folder.
    expect(model.files.map((file: { name: string; folder: string }) => `${file.folder}|${file.name}`).sort()).toEqual([
      'extras|spare.stl',
      '|README.md',
      '|base.stl',
      '|hinge.stl',
      '|lid.stl',
    ])
    const loose = await modelNamed(target, 'loose-bracket')
    expect(loose.files.map((file: { name: string; folder: string }) => `${file.folder}|${file.name}`).sort()).toEqual([
      '|loose-bracket.jpg',
      '|loose-bracket.stl',
    ])
  })

  it('sends not one request on a second run over the unchanged tree', async () => {
    const before = requestsTo(target.vault)
    const run = await workspace.importCli([...template, tree], target.env)
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(
      /Models: 0 created, 0 joined, 101 from an earlier run\. Files: 0 uploaded, 0 already in the vault, 502 unchanged since the last run/,
    )
    expect(requestsTo(target.vault)).toBe(before)
  })
})

describe('model-vault import of model folders that share a file', () => {
  it('makes one model per folder from its mesh, whatever other files they share; skips a folder with no mesh and a named pipe', async () => {
    const target = await workspace.newVault()
    const sharedConfig = '[print:shared]\nlayer_height = 0.2\n'
    const files: Record<string, Uint8Array | string> = { 'Notes only/PrusaSlicer_config.ini': sharedConfig }
    for (const name of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']) {
      files[`${name}/${name.toLowerCase()}.stl`] = distinctCube()
      // Sorts before the mesh and is the same bytes in every folder.
      files[`${name}/PrusaSlicer_config.ini`] = sharedConfig
    }
    files['Notes only/README.md'] = '# no mesh here\n'
    const tree = writeTree(join(workspace.dir(), 'shared-config'), files)
    execFileSync('mkfifo', [join(tree, 'Alpha', 'pipe.stl')])

    const asked = requestsTo(target.vault)
    const first = await workspace.importCli([tree, '--template', '{model}'], target.env)
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toContain('Models: 5 created, 0 joined')
    // The key's check, then one request per file: a model made with its folder's name needs no set-up.
    expect(requestsTo(target.vault) - asked).toBe(1 + 10)
    // Every model is its own folder's and holds its own config file; the bytes are stored once.
    const stats = (await totals(target)) as Awaited<ReturnType<typeof totals>> & { totals: { bytes_stored: number } }
    expect(stats.totals).toMatchObject({ models: 5, files: 10 })
    for (const name of ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo']) {
      const model = await modelNamed(target, name)
      expect(model.files.map((file: { name: string }) => file.name).sort()).toEqual([
        'PrusaSlicer_config.ini',
        `${name.toLowerCase()}.stl`,
      ])
    }
    const cubes = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map(
      (stem) => statSync(join(tree, stem[0]?.toUpperCase() + stem.slice(1), `${stem}.stl`)).size,
    )
    expect(stats.totals.bytes_stored).toBe(cubes.reduce((sum, size) => sum + size, 0) + sharedConfig.length)
    expect(first.stdout).toMatch(/Notes only\/README\.md.*no mesh, G-code or CAD file/)
    expect(first.stdout).toMatch(/Alpha\/pipe\.stl.*a named pipe \(FIFO\): only regular files are imported/)

    const before = requestsTo(target.vault)
    const again = await workspace.importCli([tree, '--template', '{model}'], target.env)
    expect(again.code, again.stderr).toBe(0)
    expect(requestsTo(target.vault)).toBe(before)
  })
})
