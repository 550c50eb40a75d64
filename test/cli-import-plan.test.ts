import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { call } from './support/accounts.js'
import { distinctCube, importWorkspace, requestsTo, slow, totals, type Vault, writeTree } from './support/import-cli.js'

const workspace = importWorkspace()

interface PlannedFile {
  path: string
  name: string
  folder: string
  size: number
}

interface JsonPlan {
  models: {
    key: string
    name: string
    new_model: boolean
    collections: string[]
    tags: string[]
    readme: string | null
    files: PlannedFile[]
  }[]
  skipped: { path: string; reason: string }[]
}

interface Detail {
  name: string
  description: string
  tags: string[]
  collections: { name: string }[]
  files: { name: string; folder: string; size: number; sha256: string }[]
}

/**
 * Twenty model folders as a library of downloads holds them: one slicer config copied into most
 * of them, supported and unsupported variants of one part under the same name, nested folders,
 * pictures, READMEs, a remix holding its original's mesh byte for byte, a loose part beside the
 * model folders and a folder of notes with nothing to print.
 */
function downloadsTree(): Record<string, Uint8Array | string> {
  const config = '[print:0.2mm QUALITY]\nlayer_height = 0.2\nperimeters = 2\n'
  const files: Record<string, Uint8Array | string> = {}
  const makers = ['Maker A', 'Maker B']
  for (let index = 1; index <= 19; index++) {
    const collection = ['Dragons', 'Tools', 'Minis', 'Vases'][index % 4]
    const model = `${collection}/${makers[index % 2]}/${collection} ${index}`
    files[`${model}/body.stl`] = distinctCube()
    if (index % 5 !== 0) files[`${model}/PrusaSlicer_config.ini`] = config
    if (index % 3 === 0) {
      files[`${model}/supported/part.stl`] = distinctCube()
      files[`${model}/unsupported/part.stl`] = distinctCube()
    }
    if (index % 4 === 1) files[`${model}/stls/nested/tail.stl`] = distinctCube()
    if (index % 2 === 0) files[`${model}/images/photo ${index}.png`] = `a photo of model ${index}`
    if (index % 3 !== 1) files[`${model}/README.md`] = `# ${collection} ${index}\n\nPrint at 0.2 mm, no supports.\n`
    // Two READMEs: the one the plan names describes the model.
    if (index % 6 === 2) files[`${model}/readme.txt`] = `Notes on ${collection} ${index}.`
  }
  // The remix holds the original's body as its own first part, and sorts before the original.
  const original = files['Dragons/Maker A/Dragons 4/body.stl'] as Uint8Array
  Object.assign(files, {
    'Dragons/Maker B/A dragon remix/body.stl': original,
    'Dragons/Maker B/A dragon remix/wings.stl': distinctCube(),
    'Dragons/Maker B/A dragon remix/PrusaSlicer_config.ini': config,
    'Dragons/Maker B/A dragon remix/readme.txt': 'Remix of Dragons 4 with wings.',
    'Tools/loose clip.stl': distinctCube(),
    'Tools/loose clip.jpg': 'a photo of the clip',
    'Minis/Maker A/Notes only/PrusaSlicer_config.ini': config,
    'Minis/Maker A/Notes only/README.md': '# nothing to print',
  })
  return files
}

/** Each model as the plan says it will be and as the vault answers it: name, labels, description and files. */
const comparable = (model: {
  name: string
  description: string
  tags: string[]
  collections: string[]
  files: { name: string; folder: string; size: number }[]
}) => ({
  name: model.name,
  description: model.description,
  tags: [...model.tags].sort(),
  collections: [...model.collections].sort(),
  files: model.files.map((file) => `${file.folder}|${file.name}|${file.size}`).sort(),
})

async function modelsIn({ vault, token }: Vault): Promise<Detail[]> {
  const list = await call(vault.baseUrl, 'GET', '/api/v1/models?limit=100', { token })
  return Promise.all(
    (list.body.items as { id: string }[]).map(
      async (model) => (await call(vault.baseUrl, 'GET', `/api/v1/models/${model.id}`, { token })).body as Detail,
    ),
  )
}

const byName = <T extends { name: string }>(models: T[]) => [...models].sort((a, b) => (a.name < b.name ? -1 : 1))

describe(
  'model-vault import of 20 model folders with shared configs, variants, nested folders and a remix',
  slow,
  () => {
    it('imports exactly what the dry run planned, READMEs as descriptions, and a second run sends nothing', async () => {
      const target = await workspace.newVault()
      const tree = writeTree(join(workspace.dir(), 'downloads'), downloadsTree())
      const args = ['--template', '{collection}/{creator}/{model}', tree]

      const dry = await workspace.importCli([...args, '--dry-run', '--json'], target.env)
      expect(dry.code, dry.stderr).toBe(0)
      const plan = JSON.parse(dry.stdout) as JsonPlan
      expect(plan.models.filter((model) => model.new_model)).toHaveLength(20)
      expect(plan.models.find((model) => model.key === 'Tools/loose clip.stl')?.files.map((file) => file.path)).toEqual(
        ['Tools/loose clip.stl', 'Tools/loose clip.jpg'],
      )
      expect(plan.skipped.map((file) => file.path).sort()).toEqual([
        'Minis/Maker A/Notes only/PrusaSlicer_config.ini',
        'Minis/Maker A/Notes only/README.md',
      ])
      // Every model's first file makes it: a mesh, never the config they share.
      expect(plan.models.every((model) => model.files[0]?.name.endsWith('.stl'))).toBe(true)
      expect((await totals(target)).totals.models).toBe(0)

      const run = await workspace.importCli(args, target.env)
      expect(run.code, run.stderr + run.stdout).toBe(0)
      expect(run.stdout).toMatch(/Models: 21 created, 0 joined, 0 from an earlier run/)
      const planned = plan.models.map((model) =>
        comparable({
          ...model,
          description: model.readme ? readFileSync(join(tree, model.readme), 'utf8').trim() : '',
        }),
      )
      const imported = await modelsIn(target)
      const asImported = imported.map((detail) =>
        comparable({ ...detail, collections: detail.collections.map((collection) => collection.name) }),
      )
      expect(byName(asImported)).toEqual(byName(planned))
      // The remix and its original are two models, each holding the same body.
      const original = createHash('sha256')
        .update(readFileSync(join(tree, 'Dragons/Maker A/Dragons 4/body.stl')))
        .digest('hex')
      const holders = imported.filter((model) => model.files.some((file) => file.sha256 === original))
      expect(holders.map((model) => model.name).sort()).toEqual(['A dragon remix', 'Dragons 4'])

      const stats = await totals(target)
      const before = requestsTo(target.vault)
      const again = await workspace.importCli(args, target.env)
      expect(again.code, again.stderr).toBe(0)
      expect(again.stdout).toMatch(/Models: 0 created, 0 joined, 21 from an earlier run\. Files: 0 uploaded/)
      expect(requestsTo(target.vault)).toBe(before)
      expect(await totals(target)).toEqual(stats)
    })
  },
)
