import type { OpenAPIHono } from '@hono/zod-openapi'
import packageJson from '../../../package.json' with { type: 'json' }
import { createApp } from '../../app.js'
import { createConfirmedCredentials } from '../../core/accounts/confirmed-credentials.js'
import { ensureFirstSuperuser } from '../../core/accounts/first-superuser.js'
import { createKeyRing } from '../../core/accounts/key-ring.js'
import { randomToken } from '../../core/accounts/secrets.js'
import { createPortableSha256 } from '../../core/blobs/portable-sha256.js'
import { parseConfig } from '../../core/config/config.js'
import { createEnvReader } from '../../core/config/env-reader.js'
import { migrateToLatest } from '../../core/db/migrate.js'
import { createEventLogPoll } from '../../core/events/event-log-poll.js'
import { createEventSignal } from '../../core/events/event-signal.js'
import { smallFileBytes } from '../../core/ingest/extractor.js'
import { createRegistrationSlots } from '../../core/ingest/registration-slots.js'
import { ensureInstallation } from '../../core/installation.js'
import { indexPendingModels } from '../../core/library/refresh-model.js'
import { createPrinterStatusCache } from '../../core/printers/status-cache.js'
import { systemClock } from '../../core/runtime/clock.js'
import { createJsonLogger, type Logger } from '../../core/runtime/logger.js'
import { createSemaphore } from '../../core/runtime/semaphore.js'
import type { AppDeps, AppEnv } from '../../routes/app-env.js'
import { fetchHeaderAccess } from '../../routes/header-access.js'
import { openD1Database } from '../d1/d1-database.js'
import { createR2BlobStore } from '../r2/r2-blob-store.js'
import { createFetchS3BackupSink } from '../s3-fetch/s3-fetch-backup-sink.js'
import { createBoundedExtractor, idleAnalysis } from './bounded-extractor.js'
import { createMemoryScratchCopy } from './memory-scratch-copy.js'
import { noBackupSink } from './no-backup-sink.js'
import { createPbkdf2PasswordHasher } from './pbkdf2-password-hasher.js'
import { webCompression } from './web-compression.js'
import { readMultipartWeb } from './web-multipart.js'
import { createWorkersAssets } from './workers-assets.js'
import { vaultVariables, type WorkersEnv } from './workers-env.js'
import { workersBackupLimitReason, workersUnsupportedOperations } from './workers-limits.js'

export interface WorkersVault {
  /** The Hono app: its `fetch` is the Worker's, or mount it with `parent.route('/vault', vault.app)`. */
  app: OpenAPIHono<AppEnv>
  deps: AppDeps
}

/**
 * A whole vault on Cloudflare Workers from the Worker's `env`: D1 for the database (migrated here),
 * R2 for blobs (`blobs/`) and thumbnails (`thumbs/`), PBKDF2 passwords, SHA-256 in JavaScript,
 * multipart uploads on web streams, the web UI from the static assets. Creates the first superuser
 * on a new install (set `VAULT_ADMIN_PASSWORD` as a secret; a generated one is logged once).
 * Backups go to the `VAULT_BACKUP_S3_*` bucket, bounded by `VAULT_WORKERS_BACKUP_MAX_BYTES`; without
 * a bucket they answer 501, as printers do (workers-limits.ts). Rejects with the cause when the
 * configuration is invalid or D1 cannot be migrated.
 */
export async function createWorkersVault(env: WorkersEnv, logger?: Logger): Promise<WorkersVault> {
  const variables = vaultVariables(env)
  const config = parseConfig(variables)
  const workersVars = createEnvReader(variables)
  const readMaxBytes = workersVars.integer('VAULT_WORKERS_READ_MAX_BYTES', 16 * 1024 ** 2, 0, 1024 ** 3)
  const zipMaxBytes = workersVars.integer('VAULT_WORKERS_ZIP_MAX_BYTES', 32 * 1024 ** 2, 0, 1024 ** 3)
  const backupMaxBytes = workersVars.integer('VAULT_WORKERS_BACKUP_MAX_BYTES', 32 * 1024 ** 2, 0, 1024 ** 3)
  const log = logger ?? createJsonLogger((line) => console.log(line.trimEnd()), { level: config.logLevel })
  const clock = systemClock
  const database = openD1Database(env.DB, { maxSnapshotBytes: backupMaxBytes })
  const schemaVersion = await migrateToLatest(database.db)
  await ensureInstallation(database.db, clock)
  await indexPendingModels(database, () => clock.now().toISOString())
  log.info('database ready', { kind: 'd1', schema_version: schemaVersion })
  const blobs = createR2BlobStore({ bucket: env.BUCKET, prefix: 'blobs/' })
  // Without its keys the bucket is as good as absent: backups answer 501 and say what to set.
  const { s3: backupS3 } = config.backup
  const backupBucket = backupS3?.credentials
    ? createFetchS3BackupSink({ ...backupS3, credentials: backupS3.credentials })
    : null
  const passwordHasher = createPbkdf2PasswordHasher()
  const signal = createEventSignal()
  const deps: AppDeps = {
    service: {
      name: 'model-vault',
      version: packageJson.version,
      instanceId: crypto.randomUUID(),
      startedAt: clock.now().toISOString(),
    },
    database,
    blobs,
    thumbnails: createR2BlobStore({ bucket: env.BUCKET, prefix: 'thumbs/' }),
    createSha256: createPortableSha256,
    compression: webCompression,
    // No disk to write archives to first: the backup bucket takes the backup directory's place.
    backups: {
      local: backupBucket ?? noBackupSink,
      offsite: null,
      retentionDays: config.backup.retentionDays,
      limit: { bytes: backupMaxBytes, reason: workersBackupLimitReason },
    },
    gcGraceMs: config.gc.graceMinutes * 60_000,
    clock,
    liveness: null,
    logger: log,
    ...createWorkersAssets(env.ASSETS),
    keys: await createKeyRing(
      database,
      {
        jwtSecrets: config.jwt.secret ? [config.jwt.secret] : [],
        printerCredentialsKey: config.printers.credentialsKey,
      },
      createPortableSha256,
      clock,
    ),
    // Per isolate: a revocation through another isolate reaches this one within the window.
    confirmedCredentials: createConfirmedCredentials(clock, config.sessionRecheckMs),
    auth: { passwordHasher, decoyPasswordHash: await passwordHasher.hash(randomToken(18)) },
    // Cloudflare sets the caller's address; nobody in front of the Worker can forge it.
    getClientAddress: (c) => c.req.header('cf-connecting-ip'),
    headerAccess: fetchHeaderAccess,
    extractStoredFile: createBoundedExtractor(blobs, readMaxBytes),
    analysis: idleAnalysis,
    // As on Node (node-deps.ts), with fewer small files at once in an isolate's 128 MB.
    registrations: createRegistrationSlots({ large: 2, small: 4, smallBytes: smallFileBytes }),
    // As on Node (node-deps.ts): an isolate has 128 MB, and bodies being read hold their chunks in it.
    uploadBodies: createSemaphore(4, { leaseMs: 10_000 }),
    readMultipart: readMultipartWeb,
    writeScratchCopy: createMemoryScratchCopy(zipMaxBytes),
    maxUploadBytes: config.maxUploadBytes,
    maxBodyBytes: config.maxBodyBytes,
    publicUrl: config.publicUrl,
    corsOrigins: config.corsOrigins,
    downloadLinkTtlSeconds: config.downloadLinkTtlSeconds,
    printers: {
      // A Worker runs in a data centre: the printers on a home network are out of its reach.
      providers: [],
      statusCache: createPrinterStatusCache({ clock, ttlMs: config.printers.statusTtlMs }),
      timeoutMs: config.printers.timeoutMs,
      confirmMs: config.printers.confirmMs,
    },
    // Nothing publishes here (no printers), and nothing would deliver (no background work): see workers-limits.ts.
    events: { signal, logPoll: createEventLogPoll({ database, signal, intervalMs: 1_000 }), deliveryTimeoutMs: 10_000 },
    unsupported: workersUnsupportedOperations(backupBucket !== null),
    waitUntil: (c, work) => c.executionCtx.waitUntil(work),
  }
  await ensureFirstSuperuser(deps, log, config.admin)
  return { app: createApp(deps), deps }
}
