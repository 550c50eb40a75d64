import type { Kysely, Selectable } from 'kysely'
import type { Database, FilesTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { nameKey } from '../formats/name-keys.js'
import { releaseContent, thumbnailStoreKeys } from './content-release.js'
import type { LibraryDeps } from './library-deps.js'
import { type FileRecord, toFileRecord } from './records.js'
import { refreshModel } from './refresh-model.js'

/** A stored file's row (where its bytes and thumbnail are), or 404. */
export async function getFileRow(db: Kysely<Database>, id: string): Promise<Selectable<FilesTable>> {
  const row = await db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw new VaultError('not_found', `No file has the id ${id}.`)
  return row
}

/** A stored file as the API shows it, or 404. */
export async function getFile(db: Kysely<Database>, id: string): Promise<FileRecord> {
  return toFileRecord(await getFileRow(db, id))
}

/**
 * Renames a file or moves it to another folder of its model (its format stays the one its
 * content was read as); bumps the model's `updated_at` and re-indexes it.
 */
export async function updateFile(
  deps: LibraryDeps,
  id: string,
  changes: { name?: string; folder?: string },
): Promise<FileRecord> {
  const now = deps.clock.now().toISOString()
  await deps.database.db.transaction().execute(async (trx) => {
    const file = await getFileRow(trx, id)
    await trx
      .updateTable('files')
      .set({
        ...(changes.name !== undefined ? { original_name: changes.name, name_key: nameKey(changes.name) } : {}),
        ...(changes.folder !== undefined ? { folder: changes.folder } : {}),
      })
      .where('id', '=', id)
      .execute()
    await trx.updateTable('models').set({ updated_at: now }).where('id', '=', file.model_id).execute()
    await refreshModel(trx, deps.database.dialect.search, file.model_id, now)
  })
  return getFile(deps.database.db, id)
}

/**
 * Removes a file from its model; its stored bytes and thumbnail go when no other file holds them.
 * The model stays, also when this was its last file.
 */
export async function deleteFile(deps: LibraryDeps, id: string): Promise<void> {
  const now = deps.clock.now().toISOString()
  const file = await deps.database.db.transaction().execute(async (trx) => {
    const file = await getFileRow(trx, id)
    await trx.deleteFrom('files').where('id', '=', id).execute()
    await trx.updateTable('models').set({ updated_at: now }).where('id', '=', file.model_id).execute()
    await refreshModel(trx, deps.database.dialect.search, file.model_id, now)
    return file
  })
  deps.logger.info('file deleted', { file_id: id, model_id: file.model_id })
  await releaseContent(deps, {
    blobs: [file.sha256],
    thumbnails: thumbnailStoreKeys(file),
  })
}
