import { mkdir, readFile } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { createConfirmedCredentials } from '../../core/accounts/confirmed-credentials.js'
import { createKeyRing } from '../../core/accounts/key-ring.js'
import type { PasswordHasher } from '../../core/accounts/password-hasher.js'
import { randomToken } from '../../core/accounts/secrets.js'
import { recoverInterruptedWork } from '../../core/backup/interrupted-work.js'
import { createRestoreFence } from '../../core/backup/restore-fence.js'
import type { Config } from '../../core/config/config.js'
import type { VaultDatabase } from '../../core/db/database.js'
import type { WriteGuard } from '../../core/db/guarded-writes.js'
import { migrateToLatest } from '../../core/db/migrate.js'
import { createEventLogPoll } from '../../core/events/event-log-poll.js'
import { createEventSignal } from '../../core/events/event-signal.js'
import { startDispatchLoop } from '../../core/farm/dispatch-loop.js'
import { startAnalysisRunner } from '../../core/ingest/background-analysis.js'
import { createInThreadExtractor, smallFileBytes, smallFilesInThread } from '../../core/ingest/extractor.js'
import { createRegistrationSlots } from '../../core/ingest/registration-slots.js'
import { ensureInstallation } from '../../core/installation.js'
import { indexPendingModels } from '../../core/library/refresh-model.js'
import { createMetrics } from '../../core/metrics/metrics.js'
import { createPrinterStatusCache } from '../../core/printers/status-cache.js'
import { type Clock, systemClock } from '../../core/runtime/clock.js'
import type { Logger } from '../../core/runtime/logger.js'
import type { ServiceIdentity } from '../../core/runtime/runtime-deps.js'
import { createSemaphore } from '../../core/runtime/semaphore.js'
import type { AppDeps } from '../../routes/app-env.js'
import { createFsBackupSink } from '../fs/fs-backup-sink.js'
import { claimProcessDir } from '../fs/process-dir.js'
import { writeScratchCopy } from '../fs/scratch-file.js'
import { bambu } from '../printers/bambu/bambu-kind.js'
import { createBambuPrinters } from '../printers/bambu/bambu-provider.js'
import { duet } from '../printers/duet/duet-kind.js'
import { moonraker } from '../printers/moonraker/moonraker-kind.js'
import { octoprint } from '../printers/octoprint/octoprint-kind.js'
import { prusalink } from '../printers/prusalink/prusalink-kind.js'
import { virtual } from '../printers/virtual/virtual-kind.js'
import { openSqliteDatabase } from '../sqlite/sqlite-database.js'
import { readMultipartWithBusboy } from './busboy-multipart.js'
import { createClientAddress } from './client-address.js'
import { createNodeDocsAssets } from './docs-assets.js'
import { createWorkerExtractor } from './extract-pool.js'
import { leftoversLogger } from './leftovers-logger.js'
import { createNativeSha256 } from './native-sha256.js'
import { nodeHeaderAccess } from './node-header-access.js'
import { createParallelGzip } from './parallel-gzip.js'
import { createNodeProcessLiveness } from './process-liveness.js'
import { createScryptPasswordHasher } from './scrypt-password-hasher.js'
import { openStorage } from './storage.js'
import { createNodeUiAssets } from './ui-assets.js'

export interface NodeDepsOptions {
  logger: Logger
  service: ServiceIdentity
  clock?: Clock
  /** Defaults to scrypt at OWASP's cost; test vaults pass a cheaper one. */
  passwordHasher?: PasswordHasher
}

/**
 * Builds every adapter the configuration asks for, creates the data directories and brings
 * the database schema up to date. Returns the deps and a `close` that releases them.
 */
export async function createNodeDeps(
  config: Config,
  options: NodeDepsOptions,
): Promise<{ deps: AppDeps; close: () => Promise<void> }> {
  // Database snapshots and staged restores: each process in its own directory, so one that
  // was killed leaves nothing behind for long, whatever the others are doing.
  const scratch = await claimProcessDir(join(config.backup.dir, '.scratch'), leftoversLogger(options.logger, 'scratch'))
  const clock = options.clock ?? systemClock
  const liveness = createNodeProcessLiveness()
  const database = await openDatabase(config, {
    scratchDir: scratch.path,
    logger: options.logger,
    writeGuard: createRestoreFence({ clock, liveness }),
  })
  try {
    const schemaVersion = await migrateToLatest(database.db)
    const installationId = await ensureInstallation(database.db, clock)
    // Before anything reads the maintenance lock: a backup or restore whose process stopped
    // leaves its lock behind and its record running; both are settled here.
    await recoverInterruptedWork({ database, clock, service: options.service, liveness, logger: options.logger })
    options.logger.info('database ready', {
      kind: database.kind,
      schema_version: schemaVersion,
      installation_id: installationId,
    })
    const indexed = await indexPendingModels(database, () => clock.now().toISOString())
    if (indexed > 0) options.logger.info('search index caught up', { models: indexed })
    const passwordHasher = options.passwordHasher ?? createScryptPasswordHasher()
    const configuredKeys = {
      jwtSecrets: await configuredJwtSecrets(config),
      printerCredentialsKey: config.printers.credentialsKey,
    }
    // One core stays for requests; a few readers are plenty, each may hold VAULT_EXTRACT_MEMORY_MB.
    const extractorWorkers = config.extract.workers ?? Math.max(1, Math.min(4, availableParallelism() - 1))
    const extractor = createWorkerExtractor({
      storage: config.storage,
      workers: extractorWorkers,
      timeoutMs: config.extract.timeoutMs,
      memoryMb: config.extract.memoryMb,
      logger: options.logger,
    })
    const storage = await openStorage(config.storage, options.logger)
    const analysisWorkers = config.analysis.workers ?? extractorWorkers
    const analysis = startAnalysisRunner(
      {
        service: options.service,
        database,
        clock,
        logger: options.logger,
        ...storage,
        createSha256: createNativeSha256,
        extractStoredFile: extractor.extract,
      },
      {
        // As many as there are readers (uploads' readings go first); VAULT_ANALYSIS_WORKERS=0 leaves it to other processes.
        concurrency: analysisWorkers,
        // Storing an upload takes about two cores (this thread, the reader and file system threads): renders use the rest.
        concurrencyWhileUploading: Math.min(analysisWorkers, Math.max(0, availableParallelism() - 2)),
        uploadQuietMs: 500,
        // Past any one file's budget, so a lease lapses only when its process has stopped.
        leaseMs: config.extract.timeoutMs + 60_000,
        pollMs: 5_000,
      },
    )
    const bambuPrinters = createBambuPrinters()
    // Archives are compressed in blocks on a worker per core (threads start with the first backup).
    const compression = createParallelGzip()
    const signal = createEventSignal()
    const deps: AppDeps = {
      service: options.service,
      database,
      ...storage,
      createSha256: createNativeSha256,
      compression,
      backups: {
        local: await createFsBackupSink(config.backup.dir),
        offsite: config.backup.s3
          ? (await import('../s3/s3-backup-sink.js')).createS3BackupSink(config.backup.s3)
          : null,
        retentionDays: config.backup.retentionDays,
      },
      gcGraceMs: config.gc.graceMinutes * 60_000,
      clock,
      liveness,
      logger: options.logger,
      getDocsAsset: createNodeDocsAssets(),
      getUiAsset: createNodeUiAssets(),
      keys: await createKeyRing(database, configuredKeys, createNativeSha256, clock),
      confirmedCredentials: createConfirmedCredentials(clock, config.sessionRecheckMs),
      auth: {
        passwordHasher,
        decoyPasswordHash: await passwordHasher.hash(randomToken(18)),
      },
      getClientAddress: createClientAddress(config.trustProxy),
      headerAccess: nodeHeaderAccess,
      extractStoredFile: smallFilesInThread(createInThreadExtractor(storage.blobs), extractor.extract, smallFileBytes),
      analysis,
      // Two: measured with scripts/campaigns/upload-burst.ts (docs/reliability.md), half the peak memory of
      // unbounded. Eight small files beside them, read on this thread: a folder import of small meshes went
      // 15–25 % faster (scripts/bench/folder-import.ts).
      registrations: createRegistrationSlots({ large: 2, small: 8, smallBytes: smallFileBytes }),
      // Four, each for 10 s at most: the 200-upload burst peaked at 271 MiB instead of 349 (docs/reliability.md).
      uploadBodies: createSemaphore(4, { leaseMs: 10_000 }),
      readMultipart: readMultipartWithBusboy,
      writeScratchCopy: (body) => writeScratchCopy(scratch.path, body),
      maxUploadBytes: config.maxUploadBytes,
      maxBodyBytes: config.maxBodyBytes,
      publicUrl: config.publicUrl,
      corsOrigins: config.corsOrigins,
      ...(config.metricsToken ? { metrics: createMetrics(), metricsToken: config.metricsToken } : {}),
      downloadLinkTtlSeconds: config.downloadLinkTtlSeconds,
      printers: {
        // Each provider's folder under adapters/printers/ holds all of it; one line here offers it.
        providers: [moonraker, octoprint, prusalink, duet(), bambu(bambuPrinters), virtual(clock)],
        statusCache: createPrinterStatusCache({ clock, ttlMs: config.printers.statusTtlMs }),
        timeoutMs: config.printers.timeoutMs,
        confirmMs: config.printers.confirmMs,
      },
      events: {
        signal,
        logPoll: createEventLogPoll({ database, signal, intervalMs: eventPollMs }),
        deliveryTimeoutMs: webhookDeliveryTimeoutMs,
      },
    }
    // Every process sharing the database may dispatch: leases in it keep them from sending a job twice.
    const printQueue =
      config.queueIntervalMs > 0
        ? startDispatchLoop(deps, { intervalMs: config.queueIntervalMs, leaseMs: config.queueLeaseMs })
        : null
    if (printQueue) deps.printQueue = printQueue
    const close = async () => {
      await printQueue?.stop()
      await bambuPrinters.close()
      // The runner gives its jobs back while the readers stop under the renders it still waits for.
      await Promise.all([analysis.stop(), extractor.close()])
      await compression.close()
      await database.close()
    }
    return { deps, close }
  } catch (error) {
    await database.close()
    throw error
  }
}

/** How often the event log is read for what other processes published, once for all open event streams. */
const eventPollMs = 1_000

/** How long a webhook's receiver has to answer a delivery before the attempt counts as failed. */
const webhookDeliveryTimeoutMs = 10_000

/** `VAULT_JWT_SECRET`, or the non-empty lines of `VAULT_JWT_KEY_FILE` (first signs, all verify). */
async function configuredJwtSecrets(config: Config): Promise<string[]> {
  if (config.jwt.secret) return [config.jwt.secret]
  if (!config.jwt.keyFile) return []
  const lines = (await readFile(config.jwt.keyFile, 'utf8'))
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
  if (lines.length === 0 || lines.some((line) => new TextEncoder().encode(line).length < 32)) {
    throw new Error('VAULT_JWT_KEY_FILE must hold one or more secrets, one per line, each at least 32 bytes long')
  }
  return lines
}

/**
 * Database snapshots (and staged restores) are written in `scratchDir`, next to the archives.
 * Like the S3 client (see storage.ts), the PostgreSQL driver is loaded only when configured: a home install
 * on SQLite and local storage keeps ~20 MiB less resident (docs/reliability.md).
 */
async function openDatabase(
  config: Config,
  { scratchDir, logger, writeGuard }: { scratchDir: string; logger: Logger; writeGuard: WriteGuard },
): Promise<VaultDatabase> {
  if (config.database.kind === 'postgres') {
    const { openPostgresDatabase } = await import('../postgres/postgres-database.js')
    return openPostgresDatabase(config.database.url, {
      scratchDir,
      writeGuard,
      onIdleError: (error) => logger.warn('idle database connection failed', { error: error.message }),
    })
  }
  await mkdir(dirname(config.database.file), { recursive: true })
  return openSqliteDatabase(config.database.file, { scratchDir, writeGuard })
}
