import type { UnsupportedOperation } from '../../routes/unsupported.js'

export const backupsNotSupported =
  'Backups and restores are not available on Cloudflare Workers: an archive holds a consistent copy of the SQLite database, and D1 gives a Worker no way to take one (its statements cannot share a transaction, and a Worker has no disk to stage a restore on). Use `wrangler d1 export` or D1 Time Travel for the database and R2 bucket replication for the files, or run the vault on Node.'

const printersNotSupported =
  'Printers are not available on Cloudflare Workers: printers sit on a local network the edge cannot reach, and their status is polled and kept in memory between requests, which isolates do not keep. Run the vault on Node next to the printers.'

/** What the Workers entry cannot do; each answers 501 `not_supported_on_this_runtime` and shows in health. */
export const workersUnsupportedOperations: readonly UnsupportedOperation[] = [
  { methods: ['POST'], path: '/api/v1/backups', component: 'backup', reason: backupsNotSupported },
  { methods: ['POST'], path: '/api/v1/backups/:id/restore', component: 'backup', reason: backupsNotSupported },
  // Reading the (empty) printer list stays possible; registering one, the only way to get one, is refused.
  { methods: ['POST'], path: '/api/v1/printers', component: 'printer-provider', reason: printersNotSupported },
  { methods: ['POST'], path: '/octoprint/printers/*', component: 'printer-provider', reason: printersNotSupported },
]
