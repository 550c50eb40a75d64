import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { ApiKeySchema } from '../account-schemas.js'
import { backupStartedExample } from '../answer-examples.js'
import { IdParamSchema, idField } from '../common-schemas.js'
import { problemResponse } from '../problem.js'
import { locationHeader } from '../response-docs.js'
import { restoreInProgressResponse } from '../restore-in-progress.js'

const tags = ['Backups']

const ManifestSchema = z
  .object({
    format: z.literal('model-vault-backup'),
    format_version: z.literal(1),
    backup_id: z.string(),
    created_at: z.string().openapi({ format: 'date-time' }),
    app_version: z.string(),
    schema_version: z.number().int(),
    database_kind: z.enum(['sqlite', 'postgres']),
    storage_kind: z.string(),
    installation_id: z.string(),
    counts: z.object({
      users: z.number().int(),
      models: z.number().int(),
      files: z.number().int(),
      blobs: z.number().int(),
      thumbnails: z.number().int(),
    }),
    entries: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string() })),
  })
  .openapi('BackupManifest', {
    description: "The archive's last entry, `manifest.json`: what it holds, with a size and SHA-256 for every entry.",
  })

export const BackupSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'complete', 'failed']).openapi({
      description:
        '`running` while a live process works on it. A backup whose process stopped (killed, crashed) becomes `failed` with the error `Interrupted: the process running it stopped before it finished.` at the next start of the service or when another process starts a backup or restore; health warns meanwhile.',
    }),
    file_name: z
      .string()
      .openapi({ example: 'model-vault-2026-11-21T08-30-00Z-3f1c2a9e-7d4b-4e8a-9c1f-5b6d7e8f9a0b.tar.gz' }),
    created_by: z.string().nullable(),
    started_at: z.string().openapi({ format: 'date-time' }),
    finished_at: z.string().nullable().openapi({ format: 'date-time' }),
    progress: z
      .number()
      .min(0)
      .max(1)
      .openapi({ description: 'Share of the expected bytes archived; 1 when complete.' }),
    bytes_done: z.number().int(),
    size: z.number().int().nullable().openapi({ description: 'Bytes of the .tar.gz.' }),
    sha256: z.string().nullable().openapi({ description: 'SHA-256 of the .tar.gz.' }),
    error: z.string().nullable().openapi({ description: 'Why the backup failed; null unless `failed`.' }),
    locations: z
      .array(
        z.object({
          kind: z.enum(['local', 's3']),
          status: z.enum(['stored', 'pending', 'uploaded', 'failed', 'not_configured']),
          error: z.string().nullable(),
        }),
      )
      .openapi({
        description:
          'Where the archive is: the backup directory, and the S3 bucket when configured (`uploaded` once read back and checked).',
      }),
    manifest: ManifestSchema.nullable(),
  })
  .openapi('Backup')

const RestoreResultSchema = z
  .object({
    backup_id: z.string(),
    restored_at: z.string().openapi({ format: 'date-time' }),
    source: z.object({
      location: z.string().openapi({
        description: 'Where the archive was read from: `local` (the backup directory) or `s3`.',
        example: 'local',
      }),
      file_name: z.string(),
      size: z.number().int(),
      sha256: z.string(),
    }),
    manifest: ManifestSchema.omit({ entries: true }),
    schema_version: z
      .number()
      .int()
      .openapi({ description: 'The schema version after migrations ran on the restored data.' }),
    safety_copy: z.string().openapi({
      description:
        'File name, in the backup directory, of the database as it was before the restore (a database-only archive; `backup restore <file>` on the CLI puts it back). Never pruned.',
      example: 'pre-restore-2026-11-21T10-00-00Z-0b5d1f7e-1c2a-4f5b-9d3e-6a7b8c9d0e1f.tar.gz',
    }),
    added: z.object({ blobs: z.number().int(), thumbnails: z.number().int() }).openapi({
      description:
        'Stored files the archive brought that the stores did not have. A restore never deletes stored files.',
    }),
    sessions_revoked: z
      .number()
      .int()
      .openapi({ description: 'Sessions in the restored data that were ended; everyone signs in again.' }),
    api_keys: z.array(ApiKeySchema.extend({ username: z.string() })).openapi({
      description:
        'Every API key the restored database holds. A key revoked after the backup was made is live again: revoke it anew.',
    }),
    backups_registered: z.number().int().openapi({
      description:
        'Archives in the backup directory the restored catalogue did not list (made after this backup), added back to it.',
    }),
  })
  .openapi('RestoreResult')

export const createBackupRoute = defineRoute(allow('admin', 'full'), {
  method: 'post',
  path: '/api/v1/backups',
  operationId: 'createBackup',
  tags,
  summary: 'Start a full backup',
  description: [
    'Starts a backup of the whole install and answers at once with its record (`running`); poll `GET /api/v1/backups/{id}`',
    'for `progress` until `complete` or `failed`. The archive is one `.tar.gz`: the database (SQLite: an online snapshot',
    'taken while the service keeps serving writes; PostgreSQL: `pg_dump --format=custom`), every blob, every thumbnail,',
    'and `manifest.json` last (backup id, time, application and schema versions, database and storage kind, counts, and a',
    'size and SHA-256 per entry). It streams to `VAULT_BACKUP_DIR` under a temporary name and is renamed when complete.',
    'With `VAULT_BACKUP_S3_*` set, the archive is then copied to the bucket by multipart upload and checked by reading it',
    'back; a failed copy leaves the local backup standing and is reported on the record and in health. Afterwards,',
    'archives older than `VAULT_BACKUP_RETENTION_DAYS` (0: keep all) are pruned in both places, never the new one.',
    'Only one backup or restore runs at a time, across all processes (409 otherwise). No request body.',
    '\n\n**On Cloudflare Workers** there is no backup directory: the archive goes straight to the `VAULT_BACKUP_S3_*` bucket',
    '(one PUT, or a multipart upload once over 8 MiB), `s3_status` stays `not_configured` (there is no second copy), and the',
    'database is archived as `db/vault.sql`, an SQL dump of D1 read in one D1 batch (a consistent copy). The backup runs after',
    "the 202 as the request's `waitUntil` work, which Cloudflare lets go on for 30 s, so it is bounded by",
    '`VAULT_WORKERS_BACKUP_MAX_BYTES` (health: `max_backup_bytes`); without a bucket, or over the bound, it answers 501.',
  ].join(' '),
  responses: {
    202: {
      description: 'Started. `Location` names the record.',
      headers: locationHeader,
      content: { 'application/json': { schema: BackupSchema, example: backupStartedExample } },
    },
    409: problemResponse(
      'A backup or restore is already running in a live process (`maintenance_in_progress`). The lock of a stopped process does not hold it off: on the same host it is taken over at once, from another host once its 15-second lease has lapsed.',
    ),
    501: problemResponse(
      'Cloudflare Workers only (`not_supported_on_this_runtime`): no backup bucket is configured, or the files exceed `VAULT_WORKERS_BACKUP_MAX_BYTES`. The detail says which.',
    ),
  },
})

const BackupDestinationSchema = z
  .object({
    directory: z.string().openapi({
      description:
        'The backup directory (`VAULT_BACKUP_DIR`) on the API server, where every archive is written first. On Cloudflare Workers, the bucket that takes its place (`s3://<bucket>/<prefix>`).',
      example: '/data/backups',
    }),
    bucket: z.string().nullable().openapi({
      description:
        'The bucket (`VAULT_BACKUP_S3_*`) each archive is copied to, as `s3://<bucket>/<prefix>`; null when not configured.',
      example: 's3://vault-backups/model-vault/',
    }),
    retention_days: z.number().int().openapi({
      description:
        '`VAULT_BACKUP_RETENTION_DAYS`: archives older than this are pruned in both places; 0 keeps them all.',
      example: 30,
    }),
  })
  .openapi('BackupDestination', { description: 'Where backups go and how long they are kept (set by configuration).' })

export const listBackupsRoute = defineRoute(allow('admin', 'full'), {
  method: 'get',
  path: '/api/v1/backups',
  operationId: 'listBackups',
  tags,
  summary: 'Backups, newest first',
  responses: {
    200: {
      description: 'Every backup the vault knows of, and where backups go.',
      content: {
        'application/json': {
          schema: z.object({ items: z.array(BackupSchema), destination: BackupDestinationSchema }),
        },
      },
    },
  },
})

export const getBackupRoute = defineRoute(allow('admin', 'full'), {
  method: 'get',
  path: '/api/v1/backups/{id}',
  operationId: 'getBackup',
  tags,
  summary: 'One backup, with progress while it runs',
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The backup.', content: { 'application/json': { schema: BackupSchema } } },
    404: problemResponse('No such backup.'),
  },
})

export const restoreBackupRoute = defineRoute(allow('admin', 'full'), {
  method: 'post',
  path: '/api/v1/backups/{backup_id}/restore',
  operationId: 'restoreBackup',
  tags,
  summary: 'Restore the whole install from a backup',
  description: [
    "Replaces the database and adds the stored files of the backup's archive, found by id in the catalogue, the backup",
    'directory or the S3 bucket (so a fresh install can restore an archive copied into its `VAULT_BACKUP_DIR`). No request',
    'body. The call answers when the restore is done; meanwhile every other API request gets 503 `restore_in_progress` with',
    '`Retry-After` and the progress under `restore`, from this process at once and from every other process sharing the',
    'database within half a second. No write is acknowledged and then dropped: a write already under way when the restore',
    'takes its lock commits before it, and one that would commit after it (until the swap) fails with the same 503.',
    '\n\nThe archive is read once and checked whole against its manifest while its entries are staged; nothing is changed',
    'unless all of it verifies. Refused with 422: a damaged, truncated or tampered archive (`invalid_archive`), or one from a',
    'newer application or schema version or of another database kind (`incompatible_archive`). Then a safety copy of the',
    'current database is written, new files are committed (files are content-addressed: existing ones are kept, nothing is',
    'deleted) and the database is swapped in one atomic step (SQLite: one write transaction through the backup API;',
    'PostgreSQL: the dump replayed in one transaction). A failure or a killed process at any point leaves the install as it',
    'was (a restore killed before its swap leaves a lock that the next backup or restore takes over, at once on the same',
    'host). Afterwards migrations run, and the service serves the restored data at once.',
    "\n\n**After a restore**: every session ends, the caller's too, so everyone signs in again, with the restored",
    'passwords. The answer lists every API key in the restored data: a key revoked after the backup was made is live again.',
    'Only one backup or restore runs at a time (409).',
    '\n\n**On Cloudflare Workers** the archive is read from the `VAULT_BACKUP_S3_*` bucket and must hold `db/vault.sql` (an',
    'archive of the Workers build): an archive of a Node install holds an SQLite file or a `pg_dump`, which D1 cannot load',
    '(422 `incompatible_archive`, refused before it is read). The dump is staged in memory and swapped in as one D1 batch,',
    'which D1 runs all or nothing: every table dropped and recreated from the archive, its rows inserted, the sessions ended.',
    'A Workers archive restores on a Node install with SQLite too. Archives over `VAULT_WORKERS_BACKUP_MAX_BYTES` answer 501.',
  ].join(' '),
  request: {
    params: z.object({
      backup_id: idField().openapi({ param: { name: 'backup_id', in: 'path' } }),
    }),
  },
  responses: {
    200: { description: 'Restored.', content: { 'application/json': { schema: RestoreResultSchema } } },
    404: problemResponse('No archive of that backup in the backup directory or the bucket.'),
    409: problemResponse(
      'A backup or restore is already running in a live process (`maintenance_in_progress`). The lock of a stopped process does not hold it off: on the same host it is taken over at once, from another host once its 15-second lease has lapsed.',
    ),
    422: problemResponse(
      'The archive is damaged (`invalid_archive`) or cannot be restored by this build (`incompatible_archive`); nothing was changed.',
    ),
    502: problemResponse('The archive is not in the backup directory and the bucket cannot be reached.'),
    503: restoreInProgressResponse(
      'Another restore is running in this process (`restore_in_progress`). Every other operation answers the same way while a restore runs.',
    ),
    501: problemResponse(
      'Cloudflare Workers only (`not_supported_on_this_runtime`): no backup bucket is configured, or the archive exceeds `VAULT_WORKERS_BACKUP_MAX_BYTES`.',
    ),
    507: problemResponse('Not enough disk space to stage the archive (`insufficient_storage`); nothing was changed.'),
  },
})
