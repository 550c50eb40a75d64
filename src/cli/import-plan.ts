import { folderInModel, inSendingOrder, isModelReadme, makesModel, skipReasons } from '../core/ingest/model-plan.js'
import type { FoundFile, SkippedFile } from './import-tree.js'

/**
 * What `model-vault import` will make of a folder tree: which files form which model, and the
 * collections and tags the folders above a model give it. Pure: the tree is read elsewhere.
 *
 * The template names the folders from the imported folder down, one segment per level:
 * `{collection}`, `{creator}` (the tag `creator:<name>`), `{tag}`, `{ignore}` or `*`, and
 * `{model}`, which must come last. The folder at the `{model}` level is one model, holding every
 * file beneath it, in subfolders too, and always a model of its own; a folder with no mesh,
 * G-code or CAD file is no model, and its files are skipped. A mesh, G-code or CAD file above that
 * level is a model of its own, named after the file (or the model the vault holds it in). With
 * `--model-per-file` every such file is a model of its own. Any other file
 * outside a model folder (a picture, a document, a slicer config) joins the mesh, G-code or CAD
 * file beside it with the same base name (`Benchy.stl` and `Benchy.jpg`), else it is skipped.
 * Which files make a model, their order and their folders follow `core/ingest/model-plan`, as a
 * zip's do.
 */
export type TemplateSegment = 'collection' | 'creator' | 'tag' | 'model' | 'ignore'

export interface PlannedModel {
  /** The model folder's path, or the part file's for a model of one file: the model's identity across runs. */
  key: string
  name: string
  /** A model folder: always a model of its own, made by name. Else a model of one file, which joins the model holding it. */
  ownFolder: boolean
  collections: string[]
  tags: string[]
  /** In sending order (`sendingRank`): the first mesh (else G-code or CAD file) the vault takes makes or finds the model. */
  files: FoundFile[]
}

export interface ImportPlan {
  models: PlannedModel[]
  skipped: SkippedFile[]
}

export class TemplateError extends Error {}

const segmentNames: Record<string, TemplateSegment> = {
  '{collection}': 'collection',
  '{creator}': 'creator',
  '{tag}': 'tag',
  '{model}': 'model',
  '{ignore}': 'ignore',
  '*': 'ignore',
}

/** `{collection}/{model}` as its segments; throws TemplateError on an unknown segment or a misplaced `{model}`. */
export function parseTemplate(text: string, modelPerFile: boolean): TemplateSegment[] {
  const segments = text
    .split('/')
    .filter((part) => part !== '')
    .map((part) => {
      const segment = segmentNames[part.trim()]
      if (!segment)
        throw new TemplateError(
          `unknown template segment "${part}" (use {collection}, {creator}, {tag}, {model}, {ignore} or *)`,
        )
      return segment
    })
  const modelAt = segments.indexOf('model')
  if (modelAt >= 0 && modelAt !== segments.length - 1) throw new TemplateError('{model} must be the last segment')
  if (modelAt < 0 && !modelPerFile)
    throw new TemplateError('the template needs a {model} segment (or use --model-per-file)')
  return segments
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1)
const stemOf = (name: string) => name.replace(/\.[^.]*$/, '') || name

/** A folder name as a label, as the vault takes it: trimmed, without `forbidden`, at most `max` characters. */
const cleanLabel = (text: string, forbidden: RegExp, max: number) =>
  text.replace(forbidden, ' ').replace(/\s+/g, ' ').trim().slice(0, max).trim()
/** Tags may not hold commas or control characters (64 characters); collection names no control characters (100). */
const asTag = (text: string) => cleanLabel(text, /[,\p{Cc}]+/gu, 64)
const asCollection = (text: string) => cleanLabel(text, /\p{Cc}+/gu, 100)
const asModelName = (text: string) => cleanLabel(text, /\p{Cc}+/gu, 200)

/** The collections and tags the folders of `folders` give under `template`. */
function labelsOf(folders: string[], template: TemplateSegment[]) {
  const collections: string[] = []
  const tags: string[] = []
  folders.slice(0, template.length).forEach((folder, level) => {
    const segment = template[level]
    if (segment === 'collection' && asCollection(folder)) collections.push(asCollection(folder))
    if (segment === 'tag' && asTag(folder)) tags.push(asTag(folder))
    if (segment === 'creator' && asTag(folder)) tags.push(asTag(`creator:${folder}`))
  })
  return { collections, tags }
}

/** Groups the files of a tree into models by the template; see the module comment for the rule. */
export function planImport(files: FoundFile[], template: TemplateSegment[], modelPerFile: boolean): ImportPlan {
  const models = new Map<string, PlannedModel>()
  const skipped: SkippedFile[] = []
  const modelLevel = modelPerFile ? -1 : template.indexOf('model')
  const modelFor = (key: string, name: string, folders: string[], ownFolder: boolean) => {
    const existing = models.get(key)
    if (existing) return existing
    const model: PlannedModel = {
      key,
      name: asModelName(name) || key,
      ownFolder,
      ...labelsOf(folders, template),
      files: [],
    }
    models.set(key, model)
    return model
  }
  /** Single-file models by folder and lower-case base name, for the pictures and documents beside them. */
  const partsByStem = new Map<string, PlannedModel>()
  const extras: FoundFile[] = []
  for (const file of files) {
    const folders = file.path.split('/').slice(0, -1)
    if (modelLevel >= 0 && folders.length > modelLevel) {
      const modelFolders = folders.slice(0, modelLevel + 1)
      modelFor(modelFolders.join('/'), folders[modelLevel] ?? '', folders.slice(0, modelLevel), true).files.push(file)
    } else if (!makesModel(file.path)) extras.push(file)
    else {
      const model = modelFor(file.path, stemOf(baseName(file.path)), folders, false)
      model.files.push(file)
      partsByStem.set(stemKey(file.path), model)
    }
  }
  for (const extra of extras) {
    const beside = partsByStem.get(stemKey(extra.path))
    if (beside) beside.files.push(extra)
    else skipped.push({ path: extra.path, reason: skipReasons.outsideModel })
  }
  const planned: PlannedModel[] = []
  for (const model of models.values()) {
    if (!model.files.some((file) => makesModel(file.path))) {
      for (const file of model.files) skipped.push({ path: file.path, reason: skipReasons.noModelFile })
      continue
    }
    // Within a rank, the tree's order.
    planned.push({ ...model, files: inSendingOrder(model.files, (file) => file.path) })
  }
  return { models: planned, skipped }
}

/** Where a file of a model sits inside it: its folder below the model folder ('' for a model of one file and the files beside it). */
export const folderOf = (model: PlannedModel, file: FoundFile): string => folderInModel(model.key, file.path)

/** The model's README (at the top of its folder), whose text becomes its description. */
export const readmeOf = (model: PlannedModel): FoundFile | undefined =>
  model.files.find((file) => isModelReadme(folderOf(model, file), baseName(file.path)))

/** `folder/base name` in lower case: `Benchy.stl` and `benchy.JPG` in one folder share it. */
const stemKey = (path: string) => `${path.slice(0, path.lastIndexOf('/') + 1)}${stemOf(baseName(path))}`.toLowerCase()
