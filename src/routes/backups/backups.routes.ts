import { z } from '@hono/zod-openapi'
import { defineRoute } from '../access.js'
import { problemResponse } from '../problem.js'

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
    counts: z.object({ users: z.number().int(), models: z.number().int(), files: z.number().int(), blobs: z.number().int(), thumbnails: z.number().int() }),
    entries: z.array(z.object({ path: z.string(), size: z.number().int(), sha256: z.string() })),
  })
  .openapi('BackupManifest', { description: 'The archive\'s last entry, `manifest.json`: what it holds, with a size and SHA-256 for every entry.' })

export const BackupSchema = z
  .object({
    id: z.string(),
    status: z.enum(['running', 'complete', 'failed']),
    file_name: z.string().openapi({ example: 'model-vault-2026-11-21T08-30-00Z-3f1c2a9e-7d4b-4e8a-9c1f-5b6d7e8f9a0b.tar.gz' }),
    created_by: z.string().nullable(),
    started_at: z.string().openapi({ format: 'date-time' }),
    finished_at: z.string().nullable().openapi({ format: 'date-time' }),
    progress: z.number().min(0).max(1).openapi({ description: 'Share of the expected bytes archived; 1 when complete.' }),
    bytes_done: z.number().int(),
    size: z.number().int().nullable().openapi({ description: 'Bytes of the .tar.gz.' }),
    sha256: z.string().nullable().openapi({ description: 'SHA-256 of the .tar.gz.' }),
    error: z.string().nullable(),
    locations: z
      .array(z.object({ kind: z.enum(['local', 's3']), status: z.enum(['stored', 'pending', 'uploaded', 'failed', 'not_configured']), error: z.string().nullable() }))
      .openapi({ description: 'Where the archive is: the backup directory, and the S3 bucket when configured (`uploaded` once read back and checked).' }),
    manifest: ManifestSchema.nullable(),
  })
  .openapi('Backup')

const IdParams = z.object({ id: z.string().min(1).max(100).openapi({ param: { name: 'id', in: 'path' } }) })

export const createBackupRoute = defineRoute('admin', {
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
  ].join(' '),
  responses: {
    202: { description: 'Started. `Location` names the record.', content: { 'application/json': { schema: BackupSchema } } },
    409: problemResponse('A backup or restore is already running (`maintenance_in_progress`).'),
  },
})

export const listBackupsRoute = defineRoute('admin', {
  method: 'get',
  path: '/api/v1/backups',
  operationId: 'listBackups',
  tags,
  summary: 'Backups, newest first',
  responses: { 200: { description: 'Every backup the vault knows of.', content: { 'application/json': { schema: z.object({ items: z.array(BackupSchema) }) } } } },
})

export const getBackupRoute = defineRoute('admin', {
  method: 'get',
  path: '/api/v1/backups/{id}',
  operationId: 'getBackup',
  tags,
  summary: 'One backup, with progress while it runs',
  request: { params: IdParams },
  responses: {
    200: { description: 'The backup.', content: { 'application/json': { schema: BackupSchema } } },
    404: problemResponse('No such backup.'),
  },
})
