import { unprocessable } from '../errors.js'
import type { ZipEntry, ZipReader } from '../formats/zip-reader.js'
import { cleanFolder } from '../library/folders.js'
import { clutterReason } from './archive-entries.js'

/** What a package says of its model, checked by the rules of a model edit. */
export interface PackageMetadata {
  name?: string
  description?: string
  tags?: string[]
  collections?: string[]
  creator?: string
  sourceUrl?: string
  license?: string
}

/**
 * Reads a parsed `datapackage.json` for its model: `title`, `description` and `keywords` by the
 * rules of `PATCH /api/v1/models/{id}`, `model_vault.collections` by those of collection names.
 * Throws a 422 naming `source` for a bad one. The routes own those rules and inject them.
 */
export type CheckPackageMetadata = (descriptor: Record<string, unknown>, source: string) => PackageMetadata

/** What a package says of one of its files. */
export interface PackageResource {
  originalName?: string
  /** Its folder inside the model, when the package says (else the folder of its path). */
  folder?: string
  /** Lowercase hex, from a `sha256:` hash; other kinds of hash are not checked. */
  sha256?: string
  /** The image the package marks as the model's cover. */
  cover?: boolean
}

/** One model an archive unpacks into: the folder holding its files and what its package says of it. */
export interface ArchiveModelPlan {
  /** `''` for the whole archive, else `<folder>/`. */
  folder: string
  /** The part of its entries' paths above the model: `<folder>/`, or the single top folder everything lies in. */
  root: string
  name: string
  metadata: PackageMetadata
  /** The package's `datapackage.json`: read for the model, not stored as a file. */
  descriptor?: ZipEntry
  /** By the full path of the entry. */
  resources: Map<string, PackageResource>
}

const descriptorName = 'datapackage.json'
const maxDescriptorBytes = 16 * 1024 * 1024

/**
 * The models a zip unpacks into. A `datapackage.json` at the root makes a single-model
 * package; one in every top folder makes a multi-model package (a model per folder). Any
 * other zip is one model, named after its single top folder if everything lies in one, else
 * after the zip (`stem`). Clutter (`__MACOSX/`, `.DS_Store`) does not count.
 */
export async function planArchiveModels(
  zip: ZipReader,
  stem: string,
  check: CheckPackageMetadata,
): Promise<ArchiveModelPlan[]> {
  const root = zip.get(descriptorName)
  if (root) return [await readPackage(zip, root, '', stem, check)]
  const folders = [
    ...new Set(zip.entries.filter((entry) => !clutterReason(entry.name)).map((entry) => topFolder(entry.name))),
  ]
  const packages = folders.map((folder) => folder && zip.get(`${folder}/${descriptorName}`))
  if (folders.length > 0 && packages.every((entry) => entry)) {
    return Promise.all(
      folders.map((folder, index) =>
        readPackage(zip, packages[index] as ZipEntry, `${folder}/`, folder as string, check),
      ),
    )
  }
  const single = folders.length === 1 ? folders[0] : undefined
  return [{ folder: '', root: single ? `${single}/` : '', name: single ?? stem, metadata: {}, resources: new Map() }]
}

const topFolder = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : undefined)

async function readPackage(
  zip: ZipReader,
  descriptor: ZipEntry,
  folder: string,
  fallbackName: string,
  check: CheckPackageMetadata,
): Promise<ArchiveModelPlan> {
  const pkg = record(await readJson(zip, descriptor))
  if (!pkg)
    throw unprocessable(`${descriptor.name} is not a JSON object.`, [
      { path: descriptor.name, message: 'is not a JSON object' },
    ])
  const metadata = check(pkg, descriptor.name)
  const resources = new Map<string, PackageResource>()
  for (const item of Array.isArray(pkg.resources) ? pkg.resources : []) {
    const resource = record(item)
    if (typeof resource?.path !== 'string') continue
    const extension = record(resource.model_vault)
    const originalName = extension?.original_name
    const sha256 = typeof resource.hash === 'string' ? /^sha256:([0-9a-f]{64})$/i.exec(resource.hash)?.[1] : undefined
    resources.set(folder + resource.path, {
      originalName: typeof originalName === 'string' ? originalName : undefined,
      folder: typeof extension?.folder === 'string' ? cleanFolder(extension.folder) : undefined,
      sha256: sha256?.toLowerCase(),
      cover: extension?.cover === true,
    })
  }
  return { folder, root: folder, name: metadata.name ?? fallbackName, metadata, descriptor, resources }
}

async function readJson(zip: ZipReader, entry: ZipEntry): Promise<unknown> {
  const bytes = await zip.readEntry(entry, maxDescriptorBytes)
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    throw unprocessable(`${entry.name} is not valid UTF-8 JSON.`, [{ path: entry.name, message: 'is not valid JSON' }])
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
