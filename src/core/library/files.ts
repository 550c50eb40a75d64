import type { Kysely, Selectable } from 'kysely'
import type { Database, FilesTable } from '../db/schema.js'
import { notFound } from '../errors.js'
import { type FileRecord, toFileRecord } from './records.js'

/** A stored file's row (where its bytes and thumbnail are), or 404. */
export async function getFileRow(db: Kysely<Database>, id: string): Promise<Selectable<FilesTable>> {
  const row = await db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`No file has the id ${id}.`)
  return row
}

/** A stored file as the API shows it, or 404. */
export async function getFile(db: Kysely<Database>, id: string): Promise<FileRecord> {
  return toFileRecord(await getFileRow(db, id))
}
