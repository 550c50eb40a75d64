import type { Generated } from 'kysely'

/**
 * Table types for Kysely. One schema serves SQLite and PostgreSQL, so columns keep to types
 * both read back the same way: text ids (UUIDs), ISO-8601 UTC timestamps as text (they sort
 * correctly as strings), and integers that fit in a JavaScript number.
 */
export interface InstallationTable {
  singleton: Generated<number>
  id: string
  created_at: string
}

export interface Database {
  installation: InstallationTable
}
