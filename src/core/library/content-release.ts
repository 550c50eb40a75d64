import type { Kysely, Selectable } from 'kysely'
import { dropJobs } from '../analysis/analysis-queue.js'
import { putContentAddressed, streamOf } from '../blobs/put-content-addressed.js'
import type { Database, FilesTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { isMaintenanceRunning } from '../runtime/maintenance-lock.js'
import type { LibraryDeps } from './library-deps.js'
import { refreshModel } from './refresh-model.js'

type ContentDeps = Pick<LibraryDeps, 'database' | 'blobs' | 'thumbnails' | 'createSha256' | 'clock'>

/**
 * Deletes stored bytes (blobs) and thumbnails that no row references any more, after the
 * rows that referenced them were deleted and committed.
 *
 * The hazard is an upload of the same bytes running meanwhile: it found the blob present,
 * threw its own copy away, and is about to insert a file row pointing at it. Two rules make
 * that safe without a grace period:
 * 1. Here, "is it still referenced?" and the deletion happen in one transaction that first
 *    blocks new file rows (`SqlDialect.blockNewFileRows`; PostgreSQL: `LOCK TABLE files IN
 *    SHARE MODE`, SQLite: a write, which takes the database's write lock). A file row committed before it is seen and keeps the blob; one inserted after it
 *    commits finds the blob gone.
 * 2. Ingest checks, after committing its row, that the blob is still there
 *    (`confirmStoredContent`); if it is not, it takes its row back and answers 409, asking
 *    for the upload again. Thumbnails it simply stores again (it still holds their bytes).
 * 3. While a backup runs, nothing is deleted: its database snapshot may still refer to the
 *    bytes, and the archive must hold them. They stay unreferenced until a sweep.
 * A crash between the row deletion and this clean-up leaves unreferenced blobs behind (wasted
 * space, never a dangling row) for the garbage collector. Returns what was deleted, or null
 * when a backup or restore held it back.
 */
export async function releaseContent(
  deps: ContentDeps,
  content: { blobs: string[]; thumbnails: string[] },
): Promise<{ blobs: string[]; thumbnails: string[] } | null> {
  const blobs = [...new Set(content.blobs)]
  const thumbnails = [...new Set(content.thumbnails)]
  if (blobs.length === 0 && thumbnails.length === 0) return { blobs: [], thumbnails: [] }
  return await deps.database.db.transaction().execute(async (trx) => {
    if (await isMaintenanceRunning(trx, deps.clock.now())) return null
    await deps.database.dialect.blockNewFileRows(trx)
    const keep = await referencedContent(trx, { blobs, thumbnails })
    const released = {
      blobs: blobs.filter((key) => !keep.has(key)),
      thumbnails: thumbnails.filter((key) => !keep.has(key)),
    }
    // Nothing is left to render, and a failure of bytes that are gone is no failure to show.
    await dropJobs(trx, released.blobs)
    for (const key of released.blobs) await deps.blobs.delete(key)
    for (const key of released.thumbnails) await deps.thumbnails.delete(key)
    return released
  })
}

/** Which of these blobs (as `files.sha256`, or a print run's photo) and thumbnail-store keys (a file's or model's thumbnail, a file's preview) rows refer to. */
export async function referencedContent(
  db: Kysely<Database>,
  content: { blobs: string[]; thumbnails: string[] },
): Promise<Set<string>> {
  const { blobs, thumbnails } = content
  const referencedBlobs =
    blobs.length === 0
      ? []
      : await db
          .selectFrom('files')
          .select('sha256 as key')
          .where('sha256', 'in', blobs)
          .union(
            db
              .selectFrom('dispatches')
              .select('photo_sha256 as key')
              .where('photo_sha256', 'in', blobs)
              .$narrowType<{ key: string }>(),
          )
          .execute()
  const referencedThumbnails =
    thumbnails.length === 0
      ? []
      : await db
          .selectFrom('files')
          .select('thumbnail_sha256 as key')
          .where('thumbnail_sha256', 'in', thumbnails)
          .union(db.selectFrom('files').select('preview_sha256 as key').where('preview_sha256', 'in', thumbnails))
          .union(db.selectFrom('models').select('thumbnail_sha256 as key').where('thumbnail_sha256', 'in', thumbnails))
          .execute()
  return new Set([...referencedBlobs, ...referencedThumbnails].map((row) => row.key).filter((key) => key !== null))
}

/**
 * For ingest, after its new file row committed: makes sure a concurrent model deletion did
 * not delete the bytes (or thumbnail, or preview) it relied on (see `releaseContent`). A lost
 * thumbnail or preview is stored again; lost bytes mean the row is taken back (with its model,
 * if that is left without files) and the upload answers 409 `content_deleted`.
 */
export async function confirmStoredContent(
  deps: ContentDeps,
  file: Selectable<FilesTable>,
  read: { thumbnailBytes?: Uint8Array; previewBytes?: Uint8Array } = {},
): Promise<void> {
  for (const [key, bytes] of [
    [file.thumbnail_sha256, read.thumbnailBytes],
    [file.preview_sha256, read.previewBytes],
  ] as const) {
    if (key && bytes && !(await deps.thumbnails.stat(key))) {
      await putContentAddressed(deps.thumbnails, deps.createSha256, streamOf(bytes))
    }
  }
  if (await deps.blobs.stat(file.sha256)) return
  await deps.database.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('files').where('id', '=', file.id).execute()
    const left = await trx.selectFrom('files').select('id').where('model_id', '=', file.model_id).limit(1).execute()
    if (left.length === 0) await trx.deleteFrom('models').where('id', '=', file.model_id).execute()
    else await refreshModel(trx, deps.database.dialect.search, file.model_id, deps.clock.now().toISOString())
  })
  throw contentDeleted()
}

/** What rows (files, models) hold in the thumbnail store: their thumbnails and, for files, their previews. */
export function thumbnailStoreKeys(
  ...rows: { thumbnail_sha256: string | null; preview_sha256?: string | null }[]
): string[] {
  return rows
    .flatMap((row) => [row.thumbnail_sha256, row.preview_sha256 ?? null])
    .filter((key): key is string => key !== null)
}

/** 409 `content_deleted`: the bytes of an upload went (a model deletion or the orphan sweep) while it ran. */
export const contentDeleted = () =>
  new VaultError(
    'content_deleted',
    'A model holding the same bytes was deleted while this upload ran, and the bytes with it; upload the file again.',
  )

/** Counts an upload answered as a duplicate: bytes that were not stored again. */
export async function recordDuplicateUpload(db: Kysely<Database>, bytes: number): Promise<void> {
  await db
    .updateTable('dedup_counter')
    .set((eb) => ({ uploads: eb('uploads', '+', 1), bytes: eb('bytes', '+', bytes) }))
    .where('singleton', '=', 1)
    .execute()
}
