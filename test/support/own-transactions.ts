import type { Kysely } from 'kysely'
import type { Database } from '../../src/core/db/schema.js'

/**
 * Runs each write in its own transaction, eight at a time (the PostgreSQL pool has ten
 * connections), in the order given: writers racing on the same rows, as uploads and edits do.
 */
export async function inOwnTransactions(
  db: Kysely<Database>,
  writes: ((trx: Kysely<Database>) => Promise<unknown>)[],
): Promise<void> {
  const queue = [...writes]
  const worker = async () => {
    for (let write = queue.shift(); write; write = queue.shift()) await db.transaction().execute(write)
  }
  await Promise.all(Array.from({ length: 8 }, worker))
}
