import type { Migration } from 'kysely'
import * as m0001 from './0001-installation.js'
import * as m0002 from './0002-accounts.js'
import * as m0003 from './0003-library.js'
import * as m0004 from './0004-library-organise.js'
import * as m0005 from './0005-printers.js'
import * as m0006 from './0006-backups.js'
import * as m0007 from './0007-generated-passwords.js'
import * as m0008 from './0008-lock-holders.js'
import * as m0009 from './0009-bed-clearance.js'
import * as m0010 from './0010-api-key-scopes.js'
import * as m0011 from './0011-model-media.js'
import * as m0012 from './0012-lock-progress.js'
import * as m0013 from './0013-library-counts.js'
import * as m0014 from './0014-model-lists.js'
import * as m0015 from './0015-covering-sort-indexes.js'
import * as m0016 from './0016-sliced-sources.js'
import * as m0017 from './0017-model-shape.js'
import * as m0018 from './0018-sliced-3mf-sources.js'
import * as m0019 from './0019-merge-dismissals.js'
import * as m0020 from './0020-dispatch-history.js'
import * as m0021 from './0021-collection-tree.js'
import * as m0025 from './0025-preview-meshes.js'
import * as m0026 from './0026-collection-cover.js'
import * as m0027 from './0027-analysis-queue.js'
import * as m0028 from './0028-print-queue.js'
import * as m0029 from './0029-events-and-webhooks.js'
import * as m0030 from './0030-print-controls.js'
import * as m0031 from './0031-print-runs.js'
import * as m0032 from './0032-bed-clearing-scripts.js'
import * as m0033 from './0033-bed-cleared-at.js'
import * as m0034 from './0034-generated-key-claims.js'

/**
 * Every migration, in order. Imported statically (not read from a folder) so bundlers and
 * runtimes without a filesystem run the same set. Names start with the schema version they
 * produce; a landed migration is never edited, only followed by a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001-installation': m0001,
  '0002-accounts': m0002,
  '0003-library': m0003,
  '0004-library-organise': m0004,
  '0005-printers': m0005,
  '0006-backups': m0006,
  '0007-generated-passwords': m0007,
  '0008-lock-holders': m0008,
  '0009-bed-clearance': m0009,
  '0010-api-key-scopes': m0010,
  '0011-model-media': m0011,
  '0012-lock-progress': m0012,
  '0013-library-counts': m0013,
  '0014-model-lists': m0014,
  '0015-covering-sort-indexes': m0015,
  '0016-sliced-sources': m0016,
  '0017-model-shape': m0017,
  '0018-sliced-3mf-sources': m0018,
  '0019-merge-dismissals': m0019,
  '0020-dispatch-history': m0020,
  '0021-collection-tree': m0021,
  '0025-preview-meshes': m0025,
  '0026-collection-cover': m0026,
  '0027-analysis-queue': m0027,
  '0028-print-queue': m0028,
  '0029-events-and-webhooks': m0029,
  '0030-print-controls': m0030,
  '0031-print-runs': m0031,
  '0032-bed-clearing-scripts': m0032,
  '0033-bed-cleared-at': m0033,
  '0034-generated-key-claims': m0034,
}
