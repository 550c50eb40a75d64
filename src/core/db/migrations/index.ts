import type { Migration } from 'kysely'
import * as m0001 from './0001-installation.js'
import * as m0002 from './0002-accounts.js'
import * as m0003 from './0003-library.js'

/**
 * Every migration, in order. Imported statically (not read from a folder) so bundlers and
 * runtimes without a filesystem run the same set. Names start with the schema version they
 * produce; a landed migration is never edited, only followed by a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001-installation': m0001,
  '0002-accounts': m0002,
  '0003-library': m0003,
}
