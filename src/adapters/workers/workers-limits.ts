import type { UnsupportedOperation } from '../../routes/unsupported.js'

export const backupsNeedABucket =
  'Backups and restores on Cloudflare Workers need a backup bucket: a Worker has no disk to write an archive to, so archives go straight to an S3-compatible bucket (R2 through its S3 API, or any provider). Set VAULT_BACKUP_S3_BUCKET, VAULT_BACKUP_S3_ENDPOINT, VAULT_BACKUP_S3_REGION and the secrets VAULT_BACKUP_S3_ACCESS_KEY_ID and VAULT_BACKUP_S3_SECRET_ACCESS_KEY.'

/** Why backups and restores are bounded on Workers (`Deps.backups.limit`); README.md, "Cloudflare Workers". */
export const workersBackupLimitReason =
  'on Cloudflare Workers a backup runs after its 202 answer, for the 30 s a Worker may go on after answering, and a backup or restore holds the database dump in the 128 MiB of memory a Worker has; raise VAULT_WORKERS_BACKUP_MAX_BYTES at your own risk, or back up from a Node install.'

const printersNotSupported =
  'Printers are not available on Cloudflare Workers: printers sit on a local network the edge cannot reach, and their status is polled and kept in memory between requests, which isolates do not keep. Run the vault on Node next to the printers.'

const eventsNotSupported =
  'Live events and webhooks are not available on Cloudflare Workers: the events come from printers, which a Worker cannot reach, a stream would hold an isolate open for as long as a browser tab, and webhooks are delivered by background work between requests, which isolates do not do. Run the vault on Node.'

/**
 * What the Workers entry cannot do; each answers 501 `not_supported_on_this_runtime` and shows in
 * health. Backups and restores are among them only while no backup bucket is configured.
 */
export function workersUnsupportedOperations(backupBucket: boolean): UnsupportedOperation[] {
  const backups: UnsupportedOperation[] = ['/api/v1/backups', '/api/v1/backups/:id/restore'].map((path) => ({
    methods: ['POST'],
    path,
    component: 'backup',
    reason: backupsNeedABucket,
  }))
  return [
    ...(backupBucket ? [] : backups),
    // Reading the (empty) printer list stays possible; registering one, the only way to get one, is refused.
    { methods: ['POST'], path: '/api/v1/printers', component: 'printer-provider', reason: printersNotSupported },
    { methods: ['POST'], path: '/octoprint/printers/*', component: 'printer-provider', reason: printersNotSupported },
    { methods: ['GET'], path: '/api/v1/events', component: 'printer-provider', reason: eventsNotSupported },
    { methods: ['POST'], path: '/api/v1/webhooks', component: 'printer-provider', reason: eventsNotSupported },
  ]
}
