import { makeZip, predictLength } from 'client-zip'
import { unprocessable, VaultError } from '../errors.js'
import type { LibraryDeps } from '../library/library-deps.js'
import { detailModels, type ModelDetailRecord } from '../library/models.js'
import { buildDatapackage } from './datapackage.js'
import { packagePaths, slugify, uniqueSlugs } from './package-names.js'

type PackageDeps = Pick<LibraryDeps, 'database' | 'blobs' | 'clock' | 'logger'>

/** A zip of one or more models, made as it is read. */
export interface ModelPackage {
  stream: ReadableStream<Uint8Array>
  /** The zip's exact size, known before a byte is made: every entry's size is. */
  length: number
  /** What a browser saves it as. */
  fileName: string
}

/** One entry of the zip: the bytes of `datapackage.json`, or a stored blob read when its turn comes. */
interface PackageEntry {
  name: string
  size: number
  lastModified: Date
  source: { bytes: Uint8Array } | { blobKey: string }
}

/**
 * The package of one model (404 when there is none): `datapackage.json`, its parts at the root,
 * images under `images/`, documents under `documents/`. Named `<slug>.zip`.
 */
export async function packageModel(deps: PackageDeps, id: string): Promise<ModelPackage> {
  const [model] = await loadModels(deps, [id])
  if (!model) throw new VaultError('not_found', `No model has the id ${id}.`)
  const exportedAt = deps.clock.now().toISOString()
  const slug = slugify(model.name, 'model')
  return zipEntries(deps, layOutModel(model, slug, '', exportedAt), `${slug}.zip`)
}

/**
 * One zip holding each model's package in its own folder (`<slug>/`, made unique with `-2`,
 * `-3`), in the order of `ids`; an id given twice is packaged once. Unknown ids answer 422
 * naming each of them, and nothing is sent.
 */
export async function packageModels(deps: PackageDeps, ids: string[]): Promise<ModelPackage> {
  const wanted = [...new Set(ids)]
  const models = await loadModels(deps, wanted)
  const found = new Set(models.map((model) => model.id))
  const unknown = ids.flatMap((id, index) => (found.has(id) ? [] : [{ id, index }]))
  if (unknown.length > 0) {
    throw unprocessable(
      `No model has the id${unknown.length > 1 ? 's' : ''} ${[...new Set(unknown.map(({ id }) => id))].join(', ')}.`,
      unknown.map(({ index }) => ({ path: `body.ids.${index}`, message: 'no such model' })),
    )
  }
  const exportedAt = deps.clock.now().toISOString()
  const folderName = uniqueSlugs()
  const entries = models.flatMap((model) => {
    const slug = folderName(slugify(model.name, 'model'))
    return layOutModel(model, slug, `${slug}/`, exportedAt)
  })
  return zipEntries(deps, entries, `model-vault-packages-${exportedAt.slice(0, 10)}.zip`)
}

/** The models with these ids and all their details, in the order of `ids`; unknown ids are left out. */
async function loadModels(deps: PackageDeps, ids: string[]): Promise<ModelDetailRecord[]> {
  const rows = await deps.database.db.selectFrom('models').selectAll().where('id', 'in', ids).execute()
  const byId = new Map(rows.map((row) => [row.id, row]))
  return detailModels(
    deps.database.db,
    ids.flatMap((id) => byId.get(id) ?? []),
  )
}

/**
 * A model's entries under `folder`: `datapackage.json` first, so a reader that streams the zip
 * learns the model before its files, then the files oldest first.
 */
function layOutModel(model: ModelDetailRecord, slug: string, folder: string, exportedAt: string): PackageEntry[] {
  const pathFor = packagePaths()
  const resourceName = uniqueSlugs()
  const placed = model.files.map((file) => ({
    file,
    path: pathFor(file.name, file.role, file.folder),
    resourceName: resourceName(slugify(file.name, 'file')),
  }))
  const datapackage = new TextEncoder().encode(
    `${JSON.stringify(buildDatapackage(model, slug, placed, exportedAt), null, 2)}\n`,
  )
  return [
    {
      name: `${folder}datapackage.json`,
      size: datapackage.byteLength,
      lastModified: new Date(exportedAt),
      source: { bytes: datapackage },
    },
    ...placed.map(({ file, path }) => ({
      name: `${folder}${path}`,
      size: file.size,
      lastModified: new Date(file.created_at),
      source: { blobKey: file.sha256 },
    })),
  ]
}

/**
 * The zip of `entries`, stored without compression (meshes and 3MFs barely compress, and a NAS
 * has little CPU to spare). One blob is open at a time and read only as fast as the client takes
 * the zip, so memory stays flat at any size. A blob gone meanwhile (its model deleted) errors the
 * stream: the client gets a cut-off zip without its directory, never one that looks complete.
 */
function zipEntries(
  deps: Pick<PackageDeps, 'blobs' | 'logger'>,
  entries: PackageEntry[],
  fileName: string,
): ModelPackage {
  let open: ReadableStreamDefaultReader<Uint8Array> | undefined
  async function* inputs() {
    for (const { name, size, lastModified, source } of entries) {
      if ('bytes' in source) {
        yield { name, size, lastModified, input: source.bytes }
        continue
      }
      const body = await deps.blobs.get(source.blobKey)
      if (!body) throw new Error(`The stored bytes of ${name} are gone (was its model deleted?).`)
      open = body.stream.getReader()
      yield { name, size, lastModified, input: chunks(open, name, size) }
    }
  }
  const zip = makeZip(inputs(), { buffersAreUTF8: true }).getReader()
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await zip.read()
          if (done) controller.close()
          else controller.enqueue(value)
        } catch (error) {
          deps.logger.warn('model package cut short', {
            package: fileName,
            error: error instanceof Error ? error.message : String(error),
          })
          throw error
        }
      },
      // client-zip does not cancel the input it is reading: close the open blob here (a client gone midway).
      async cancel(reason) {
        await Promise.allSettled([zip.cancel(reason), open?.cancel(reason)])
      },
    },
    { highWaterMark: 0 },
  )
  const length = Number(predictLength(entries.map(({ name, size }) => ({ name, size }))))
  return { stream, length, fileName }
}

/**
 * A blob's chunks, checked against the size its file row states: the zip's length was announced
 * from that size, so a blob that is longer or shorter (damaged storage) must cut the zip off, not
 * corrupt it silently.
 */
async function* chunks(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  name: string,
  size: number,
): AsyncGenerator<Uint8Array> {
  let read = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (!done) read += value.byteLength
    if (read > size) throw new Error(`The stored bytes of ${name} run past the ${size} bytes its file states.`)
    if (done && read < size) {
      throw new Error(`The stored bytes of ${name} end after ${read} of the ${size} bytes its file states.`)
    }
    if (done) return
    yield value
  }
}
