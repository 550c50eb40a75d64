import { createHash } from 'node:crypto'
import { createReadStream, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { makesModel } from '../core/ingest/model-plan.js'
import { eachAtOnce } from '../core/runtime/each-at-once.js'
import { createSemaphore, type Semaphore } from '../core/runtime/semaphore.js'
import { defaultJournalPath, type ImportJournal, openJournal } from './import-journal.js'
import { folderOf, type PlannedModel, parseTemplate, planImport, readmeOf, TemplateError } from './import-plan.js'
import { type ImportProgress, startProgress } from './import-progress.js'
import {
  describePlan,
  describeTally,
  emptyTally,
  type ImportTally,
  planAsJson,
  writeFailures,
} from './import-report.js'
import type { FoundFile } from './import-tree.js'
import { walkTree } from './import-tree.js'
import {
  AccessRefused,
  createImportVaultApi,
  type ImportVaultApi,
  type UploadAnswer,
  type UploadTarget,
} from './import-vault-api.js'
import { configFilePath, hookConfig } from './vault-client-config.js'

/**
 * `model-vault import DIR`: a folder tree into a running vault, as models with their
 * collections and tags, over the public API (the key needs the `read`, `upload` and `manage`
 * scopes). A journal makes a second run send only what changed and lets a killed run finish.
 */
export interface ImportOptions {
  dir: string | undefined
  template: string
  modelPerFile: boolean
  dryRun: boolean
  /** With `dryRun`: the plan as JSON. */
  json: boolean
  concurrency: string
  state: string | undefined
  includeHidden: boolean
}

interface ImportRun {
  api: ImportVaultApi
  journal: ImportJournal
  slots: Semaphore
  tally: ImportTally
  progress: ImportProgress
  /** Set by the first 401/403: the key cannot do the job, so nothing more is sent. */
  refused?: AccessRefused
}

/** Network drops and a busy vault: tried four times, 0.5, 1 and 2 s apart. */
const retryPolicy = { attempts: 4, firstDelayMs: 500 }
const neededScopes = 'read, upload and manage'

const usageFailure = (line: string) => said(process.stderr, `model-vault import: ${line}`, 2)

function said(stream: NodeJS.WriteStream, text: string, code: number): number {
  stream.write(`${text}\n`)
  return code
}

/** Imports `options.dir`; answers the exit code: 0 done, 1 something failed, 2 usage or set-up. */
export async function runImportCommand(options: ImportOptions, env: NodeJS.ProcessEnv): Promise<number> {
  const concurrency = Number(options.concurrency)
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    return usageFailure('--concurrency takes a whole number from 1 to 64')
  if (!options.dir || !statSync(options.dir, { throwIfNoEntry: false })?.isDirectory())
    return usageFailure(`no folder to import: ${options.dir ?? '(none given)'}`)
  let template: ReturnType<typeof parseTemplate>
  try {
    template = parseTemplate(options.template, options.modelPerFile)
  } catch (error) {
    if (error instanceof TemplateError) return usageFailure(`--template: ${error.message}`)
    throw error
  }
  const dir = resolve(options.dir)
  const tree = await walkTree(dir, { includeHidden: options.includeHidden })
  const plan = planImport(tree.files, template, options.modelPerFile)
  const skipped = [...plan.skipped, ...tree.skipped]
  if (options.json && !options.dryRun) return usageFailure('--json prints the plan: use it with --dry-run')
  if (options.dryRun) return said(process.stdout, (options.json ? planAsJson : describePlan)({ ...plan, skipped }), 0)

  const config = hookConfig(env)
  if (!config)
    return usageFailure(
      `not set up: set MODEL_VAULT_URL and MODEL_VAULT_API_KEY in the environment or in ${configFilePath(env)}`,
    )
  const journalPath = options.state ?? defaultJournalPath(env, config.url, dir)
  const failuresPath = `${journalPath.replace(/\.jsonl$/, '')}.failures.txt`
  const journal = openJournal(journalPath)
  const started = performance.now()
  const tally = emptyTally(skipped)
  const pending = plan.models.flatMap((model) => model.files).filter((file) => !journal.unchanged(file))
  const waiting = plan.models.filter(
    (model) => journal.setupOf(model.key)?.setup !== setupOf(model, journal.madeModel(model.key, model.files)),
  )
  const api = createImportVaultApi(config, retryPolicy)
  try {
    // Nothing changed since the last run: not one request.
    if (pending.length > 0 || waiting.length > 0) await api.check()
  } catch (error) {
    journal.close()
    const hint = error instanceof AccessRefused ? ` (the key needs the scopes ${neededScopes})` : ''
    return said(
      process.stderr,
      `model-vault import: cannot use the vault at ${config.url}: ${reasonOf(error)}${hint}`,
      1,
    )
  }
  const progress = startProgress(
    { files: pending.length, bytes: pending.reduce((sum, file) => sum + file.size, 0) },
    process.stdout,
  )
  const run: ImportRun = { api, journal, slots: createSemaphore(concurrency), tally, progress }
  // Enough models at once to keep every upload slot busy (a model's first file goes alone), while a
  // library of 100,000 files keeps only a few models' work in memory.
  await eachAtOnce(plan.models, 2 * concurrency, (model) => importModel(model, run))
  progress.stop()
  journal.close()
  writeFailures(failuresPath, tally.failed)
  const summary = describeTally(tally, (performance.now() - started) / 1000, failuresPath, journalPath)
  process.stdout.write(`${summary}\n`)
  if (run.refused)
    return said(
      process.stderr,
      `model-vault import: stopped: ${run.refused.message} (the key needs the scopes ${neededScopes})`,
      1,
    )
  return tally.failed.length > 0 ? 1 : 0
}

/**
 * Sends the model's changed files: its first mesh, G-code or CAD file alone to make the model,
 * then the rest into it, then sets it up. A model folder sends it with the model's name, which
 * makes a model of its own even when another model holds those bytes (a remix keeps the
 * original's mesh as its own part); a model of one file sends it bare, so it joins the model
 * that already holds it.
 */
async function importModel(model: PlannedModel, run: ImportRun): Promise<void> {
  const { journal, tally } = run
  const pending = model.files.filter((file) => !journal.unchanged(file))
  tally.unchanged += model.files.length - pending.length
  let modelId: string | undefined
  // A model an earlier run joined (before model folders made their own) keeps its name.
  let made = journal.madeModel(model.key, model.files)
  try {
    modelId = journal.modelIdOf(model.files) ?? (await madeByKilledRun(model, run))
  } catch (error) {
    // Making it again could double it: left for the next run.
    failed(run, model.key, error, 'finding the model an interrupted run made: ')
    return
  }
  let rest = pending
  // The model's name as the answer that made it gave it: set-up then asks for the model only when it must change.
  let madeName: string | undefined
  if (modelId) tally.modelsResumed++
  else {
    for (const part of pending.filter((file) => makesModel(file.path))) {
      rest = rest.filter((file) => file !== part)
      const target = model.ownFolder ? { modelName: model.name } : undefined
      const answer = await send(part, target, folderOf(model, part), run, model.ownFolder ? model.key : undefined)
      if (!answer) continue
      modelId = answer.model.id
      madeName = answer.model.name
      made = answer.model_created || namedAfter(answer, part)
      if (made) tally.modelsCreated++
      else tally.modelsJoined++
      break
    }
  }
  if (!modelId) {
    for (const file of rest)
      failed(run, file.path, new Error('no mesh, G-code or CAD file of its model could be stored to make the model'))
    return
  }
  const into = modelId
  // The README the plan names goes alone, before any other README of the model could describe it.
  const readme = rest.find((file) => file === readmeOf(model))
  if (readme) await send(readme, { modelId: into }, folderOf(model, readme), run)
  const others = rest.filter((file) => file !== readme)
  await Promise.all(others.map((file) => send(file, { modelId: into }, folderOf(model, file), run)))
  await setUp(model, into, made, run, madeName)
}

/**
 * A first part the vault already held, in a model still named after that very file: a run killed
 * between the upload and its journal line made it, so this run names it.
 */
const namedAfter = (answer: UploadAnswer, file: FoundFile) =>
  answer.duplicate &&
  answer.model.name === answer.file.name.replace(/\.[^.]+$/, '') &&
  answer.file.name === file.path.slice(file.path.lastIndexOf('/') + 1)

/**
 * The model a run killed between a model-making upload and its journal line made: named as the
 * model, holding that upload's bytes in its folder. Undefined when there is none (the upload never
 * arrived), and without a request when no run was killed there; throws when the vault cannot say.
 */
async function madeByKilledRun(model: PlannedModel, run: ImportRun): Promise<string | undefined> {
  const making = run.journal.makingOf(model.key)
  const file = making && model.files.find((candidate) => candidate.path === making.path)
  if (!making || !file) return undefined
  for (const id of await run.slots.run(() => run.api.modelsNamed(model.name))) {
    const detail = await run.slots.run(() => run.api.model(id))
    const folder = folderOf(model, file)
    if (detail.files.some((held) => held.sha256 === making.sha256 && held.folder === folder)) return id
  }
  return undefined
}

/** What set-up a model gets: its name only when the import made it (a model it joined keeps its own). */
const setupOf = (model: PlannedModel, made: boolean) =>
  JSON.stringify({ name: made ? model.name : null, tags: model.tags, collections: model.collections })

/** Uploads one file and journals it; answers undefined (and lists the failure) when the vault did not take it. */
async function send(
  file: FoundFile,
  target: UploadTarget | undefined,
  folder: string,
  run: ImportRun,
  making?: string,
): Promise<UploadAnswer | undefined> {
  try {
    const { answer, sha256 } = await run.slots.run(async () => {
      if (run.refused) throw run.refused
      const { sha256, bytes } = await readForUpload(file)
      if (making) run.journal.recordMaking({ making, path: file.path, sha256 })
      return { sha256, answer: await run.api.upload(file, bytes, target, folder) }
    })
    run.journal.recordFile({
      path: file.path,
      size: file.size,
      mtime_ms: file.mtimeMs,
      sha256,
      file_id: answer.file.id,
      model_id: answer.model.id,
      model_created: answer.model_created,
    })
    if (answer.duplicate) run.tally.duplicates++
    else run.tally.uploaded++
    run.tally.bytes += file.size
    run.progress.advance(file.size)
    return answer
  } catch (error) {
    failed(run, file.path, error)
    run.progress.advance(0)
    return undefined
  }
}

/**
 * Name (when made here), missing tags (merged: none dropped) and missing collections; journaled
 * when done. `madeName`: the name the upload that made the model answered with, when this run made it.
 */
async function setUp(
  model: PlannedModel,
  modelId: string,
  made: boolean,
  run: ImportRun,
  madeName: string | undefined,
): Promise<void> {
  const setup = setupOf(model, made)
  const done = run.journal.setupOf(model.key)
  if (done?.setup === setup && done.model_id === modelId) return
  const renames = made && madeName !== model.name
  try {
    await run.slots.run(async () => {
      if (run.refused) throw run.refused
      if (renames || model.tags.length > 0 || model.collections.length > 0) {
        const detail = await run.api.model(modelId)
        const has = (names: string[], name: string) => names.some((held) => held.toLowerCase() === name.toLowerCase())
        const missingTags = model.tags.filter((tag) => !has(detail.tags, tag))
        const change = {
          ...(made && detail.name !== model.name ? { name: model.name } : {}),
          ...(missingTags.length > 0 ? { tags: [...detail.tags, ...missingTags] } : {}),
        }
        if (Object.keys(change).length > 0) await run.api.updateModel(modelId, change)
        const inCollections = detail.collections.map((collection) => collection.name)
        for (const name of model.collections.filter((name) => !has(inCollections, name)))
          await run.api.addToCollection(name, modelId)
      }
    })
    run.journal.recordSetup({ model: model.key, model_id: modelId, setup })
  } catch (error) {
    failed(run, model.key, error, "setting the model's name, tags or collections: ")
  }
}

function failed(run: ImportRun, path: string, error: unknown, context = ''): void {
  if (error instanceof AccessRefused) run.refused ??= error
  run.tally.failed.push({ path, reason: `${context}${reasonOf(error)}` })
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Files up to this size are read once, hashed and sent from memory; larger ones are streamed twice (hash, then send). */
const readOnceBytes = 1024 * 1024

/**
 * The file's SHA-256 and, when small, its bytes: a library is mostly small files, and reading
 * each once instead of opening it to hash and again to send halves the import's file work.
 */
async function readForUpload(file: FoundFile): Promise<{ sha256: string; bytes?: Blob }> {
  if (file.size <= readOnceBytes) {
    const bytes = await readFile(file.absolutePath)
    return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: new Blob([bytes]) }
  }
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file.absolutePath)) hash.update(chunk as Buffer)
  return { sha256: hash.digest('hex') }
}
