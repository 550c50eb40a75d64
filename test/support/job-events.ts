import type { InProcessVault } from './test-vault.js'

/** The types of the events told about a print job, in the order they were published. */
export const jobEvents = async (vault: InProcessVault, id: string) =>
  (
    await vault.deps.database.db
      .selectFrom('events')
      .select('type')
      .where('subject', '=', `job:${id}`)
      .orderBy('id')
      .execute()
  ).map((event) => event.type)
