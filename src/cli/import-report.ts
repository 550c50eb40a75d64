import { rmSync, writeFileSync } from 'node:fs'
import { folderOf, type ImportPlan, readmeOf } from './import-plan.js'
import { formatBytes } from './import-progress.js'
import type { SkippedFile } from './import-tree.js'

/** What a run of `model-vault import` did, counted as it goes. */
export interface ImportTally {
  modelsCreated: number
  modelsJoined: number
  /** Models an earlier run made or found, carried on. */
  modelsResumed: number
  uploaded: number
  duplicates: number
  /** In the journal with the same size and modification time: not sent again. */
  unchanged: number
  bytes: number
  skipped: SkippedFile[]
  failed: SkippedFile[]
}

export const emptyTally = (skipped: SkippedFile[]): ImportTally => ({
  modelsCreated: 0,
  modelsJoined: 0,
  modelsResumed: 0,
  uploaded: 0,
  duplicates: 0,
  unchanged: 0,
  bytes: 0,
  skipped,
  failed: [],
})

const listed = (title: string, entries: SkippedFile[]) =>
  entries.length ? [`${title} (${entries.length}):`, ...entries.map((entry) => `  ${entry.path}: ${entry.reason}`)] : []

/** `--dry-run`: each model with its files, collections, tags and README, then what would be skipped. */
export function describePlan(plan: ImportPlan): string {
  const lines = plan.models.flatMap((model) => {
    const readme = readmeOf(model)
    return [
      `${model.name}  (${model.key})`,
      `  collections: ${model.collections.join(', ') || '-'}; tags: ${model.tags.join(', ') || '-'}`,
      ...(readme ? [`  description from ${readme.path} (when the model has none)`] : []),
      ...model.files.map((file) => `  ${file.path}  ${formatBytes(file.size)}`),
    ]
  })
  const files = plan.models.flatMap((model) => model.files)
  const bytes = files.reduce((sum, file) => sum + file.size, 0)
  return [
    ...lines,
    ...listed('Skipped', plan.skipped),
    `Plan: ${plan.models.length} models, ${files.length} files (${formatBytes(bytes)}), ${plan.skipped.length} skipped. --dry-run: nothing was uploaded.`,
  ].join('\n')
}

/**
 * `--dry-run --json`: the plan for scripts, in sending order. `new_model`: the model folder makes a
 * model of its own (else its first file joins the model that holds it, if any); `readme`: the
 * file whose text becomes the model's description when it has none.
 */
export function planAsJson(plan: ImportPlan): string {
  const models = plan.models.map((model) => ({
    key: model.key,
    name: model.name,
    new_model: model.ownFolder,
    collections: model.collections,
    tags: model.tags,
    readme: readmeOf(model)?.path ?? null,
    files: model.files.map((file) => ({
      path: file.path,
      name: file.path.slice(file.path.lastIndexOf('/') + 1),
      folder: folderOf(model, file),
      size: file.size,
    })),
  }))
  return JSON.stringify({ models, skipped: plan.skipped }, null, 2)
}

/** The closing summary, with every failure and its reason. */
export function describeTally(tally: ImportTally, seconds: number, failuresFile: string, journalFile: string): string {
  const models = `${tally.modelsCreated} created, ${tally.modelsJoined} joined, ${tally.modelsResumed} from an earlier run`
  const files = [
    `${tally.uploaded} uploaded`,
    `${tally.duplicates} already in the vault`,
    `${tally.unchanged} unchanged since the last run`,
    `${tally.skipped.length} skipped`,
    `${tally.failed.length} failed`,
  ].join(', ')
  return [
    ...listed('Skipped', tally.skipped),
    ...listed('Failed', tally.failed),
    `Done in ${seconds.toFixed(1)} s. Models: ${models}. Files: ${files}; ${formatBytes(tally.bytes)} sent.`,
    ...(tally.failed.length
      ? [
          `The failures are also in ${failuresFile}. Run the same command again to retry them: files already in the journal (${journalFile}) are not sent again.`,
        ]
      : []),
  ].join('\n')
}

/** `path<TAB>reason` per failure, for the user to read or script; removed once a run has none. */
export function writeFailures(path: string, failed: SkippedFile[]): void {
  if (failed.length === 0) rmSync(path, { force: true })
  else writeFileSync(path, failed.map((entry) => `${entry.path}\t${entry.reason}\n`).join(''))
}
