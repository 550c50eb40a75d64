import { type PublicApiKey, toPublicApiKey } from '../accounts/api-keys.js'
import type { BlobStore, StagedBlob } from '../blobs/blob-store.js'
import type { StagedDatabase } from '../db/database.js'
import { latestSchemaVersion, migrateToLatest } from '../db/migrate.js'
import { VaultError } from '../errors.js'
import { indexPendingModels } from '../library/refresh-model.js'
import { type HeldLock, lockLeaseMs } from '../runtime/db-lock.js'
import { eachAtOnce } from '../runtime/each-at-once.js'
import { reconcileBackupCatalogue } from './backup-catalogue.js'
import type { BackupDeps } from './backup-deps.js'
import { takeMaintenance } from './interrupted-work.js'
import { type ArchiveSource, locateArchive } from './locate-archive.js'
import { archiveFileName, type BackupManifest } from './manifest.js'
import { publishRestoreProgress, type RestoreProgress } from './restore-progress.js'
import { restoreStatements } from './restore-statements.js'
import { restoreSeenWithinMs } from './restore-watch.js'
import { invalidArchive, verifyArchive } from './verify-archive.js'
import { type ArchiveDeps, writeArchive } from './write-archive.js'

export type RestoreDeps = ArchiveDeps & Pick<BackupDeps, 'clock' | 'logger' | 'keys' | 'liveness'>

export type RestoredApiKey = PublicApiKey & { username: string }

export interface RestoreResult {
  backup_id: string
  restored_at: string
  source: { location: string; file_name: string; size: number; sha256: string }
  manifest: Omit<BackupManifest, 'entries'>
  /** The schema version after migrations. */
  schema_version: number
  /** The database as it was before the swap, as an archive in the backup directory. */
  safety_copy: string
  /** Stored files the archive brought that the stores did not have (the rest were already there). */
  added: { blobs: number; thumbnails: number }
  sessions_revoked: number
  /** Every API key in the restored database, revoked ones too: a key revoked after the backup was made is live again. */
  api_keys: RestoredApiKey[]
  /** Archives found in the backup directory that the restored catalogue did not list. */
  backups_registered: number
}

/** Restores the install from the archive of a backup in the catalogue, the backup directory or the bucket. */
export async function restoreBackup(
  deps: RestoreDeps,
  backupId: string,
  onProgress: (progress: RestoreProgress) => void,
): Promise<RestoreResult> {
  return restoreArchive(deps, () => locateArchive(deps, backupId), onProgress)
}

/**
 * Restores the whole install from one archive. The archive is read once: each entry is
 * checked and staged as it streams (the database into a scratch copy, files into the
 * stores' invisible staging), and nothing is committed until the whole archive has matched
 * its manifest. Then a safety copy of the current database is written, the new files are
 * committed (stores only ever gain files, so the current data keeps every file it needs),
 * and the database is swapped in one atomic step that also ends every session. Any failure
 * before the swap leaves the install as it was; the swap itself is all or nothing.
 */
export async function restoreArchive(
  deps: RestoreDeps,
  findSource: () => Promise<ArchiveSource>,
  onProgress: (progress: RestoreProgress) => void,
): Promise<RestoreResult> {
  const lock = await takeMaintenance(deps, 'restore')
  const lockedAt = performance.now()
  const report = publishRestoreProgress(deps, lock, onProgress)
  try {
    const source = await findSource()
    if (source.knownManifest) refuseIncompatible(deps, source.knownManifest)
    const { limit } = deps.backups
    if (limit && source.size !== null && source.size > limit.bytes)
      throw new VaultError(
        'not_supported_on_this_runtime',
        `A restore here reads an archive of at most ${limit.bytes} bytes, and this one has ${source.size}: ${limit.reason}`,
      )
    report({ phase: 'verifying', bytes_done: 0, bytes_total: source.size })
    const staged = await stageArchive(deps, source, report)
    // Other processes on the database see the restore within `restoreSeenWithinMs` of its lock and
    // then answer 503; swapping only after that (and a margin for their look) means every one of
    // them answers 503 before the data changes, however short the restore. No write commits between
    // the lock and the swap whatever they saw: the database refuses it (restore-fence.ts).
    const seenByAll = lockedAt + restoreSeenWithinMs + 250 - performance.now()
    if (seenByAll > 0) await new Promise((resolve) => setTimeout(resolve, seenByAll))
    const restoredAt = deps.clock.now()
    const safetyCopy = await swapIn(deps, source, staged, { restoredAt, lock }, report).catch(
      async (error: unknown) => {
        await discardStaged(staged)
        throw error
      },
    )
    deps.logger.info('backup restored', {
      backup_id: staged.manifest.backup_id,
      file_name: source.fileName,
      safety_copy: safetyCopy,
    })
    report({ phase: 'finishing', bytes_done: staged.size, bytes_total: staged.size })
    return await finishRestore(deps, { source, staged, restoredAt, safetyCopy }).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error)
      deps.logger.error('restore swapped in, but finishing it failed', { error: message })
      throw new VaultError(
        'restore_unfinished',
        `The backup was restored, but the steps after it failed (${message}). Restart the service: start-up runs the migrations, reloads the keys and catches up the search index.`,
      )
    })
  } finally {
    // A failed release must not hide the restore's own outcome; the lock's lease lapses within 15 s.
    await lock
      .release()
      .catch((error: Error) => deps.logger.warn('releasing the restore lock failed', { error: error.message }))
  }
}

interface StagedArchive {
  manifest: BackupManifest
  size: number
  sha256: string
  database: StagedDatabase
  files: { store: 'blobs' | 'thumbnails'; key: string; staged: StagedBlob }[]
}

/**
 * Files still being staged after their bytes were read (a local store flushes each one to disk):
 * that much goes on while the next entries are read and decompressed, so neither waits on the
 * other. Each holds an open file or an upload, not its bytes.
 */
const stagingInFlight = 4

/**
 * Staged files committed at once: a local store's renames into one shard directory then share
 * its fsyncs (grouped-sync.ts), and a bucket's copies overlap, instead of a full round trip
 * each; a library of 100,000 small files has as many to commit.
 */
const commitsInFlight = 32

/** Reads the archive once, verifying it whole and staging each entry as it passes. */
async function stageArchive(
  deps: RestoreDeps,
  source: ArchiveSource,
  onProgress: (progress: RestoreProgress) => void,
): Promise<StagedArchive> {
  const hash = deps.createSha256()
  let size = 0
  const counted = (await source.open()).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk)
        size += chunk.byteLength
        onProgress({ phase: 'verifying', bytes_done: size, bytes_total: source.size })
        controller.enqueue(chunk)
      },
    }),
  )
  let database: StagedDatabase | undefined
  const files: StagedArchive['files'] = []
  const staging = new Set<Promise<void>>()
  let stagingFailure: { error: unknown } | undefined
  const stores: Record<string, [BlobStore, 'blobs' | 'thumbnails']> = {
    blobs: [deps.blobs, 'blobs'],
    thumbs: [deps.thumbnails, 'thumbnails'],
  }
  const allStaged = async () => {
    while (staging.size > 0) await Promise.all(staging)
    if (stagingFailure) throw stagingFailure.error
  }
  try {
    const manifest = await verifyArchive(deps, counted, async ({ path, body, readToEnd }) => {
      const [folder, key] = path.split('/') as [string, string]
      if (folder === 'db') {
        refuseUnreadableSnapshot(deps, path)
        database = await deps.database.stageRestore(key, body)
        return
      }
      const target = stores[folder]
      if (!target) throw invalidArchive(`it holds an unexpected entry "${path}".`)
      const [store, name] = target
      // Content-addressed: a key already stored holds these very bytes, so only new ones are staged.
      if (await store.stat(key)) return
      while (staging.size >= stagingInFlight && !stagingFailure) await Promise.race(staging)
      if (stagingFailure) throw stagingFailure.error
      const staged = store.stage(body)
      const settled = staged.then(
        (file) => void files.push({ store: name, key, staged: file }),
        (error: unknown) => {
          stagingFailure ??= { error }
        },
      )
      staging.add(settled)
      void settled.then(() => staging.delete(settled))
      // On to the next entry once this one's bytes are read (or its staging failed first), while
      // the store flushes them.
      await Promise.race([readToEnd, staged.then(() => {})])
    })
    if (!database) throw invalidArchive('it holds no database.')
    await allStaged()
    return { manifest, size, sha256: hash.digestHex(), database, files }
  } catch (error) {
    await allStaged().catch(() => {})
    await discardStaged({ database, files })
    throw error
  }
}

/**
 * Checks the verified archive against this install and its record, writes the safety copy,
 * commits the staged files and swaps the database in. Returns the safety copy's name.
 */
async function swapIn(
  deps: RestoreDeps,
  source: ArchiveSource,
  staged: StagedArchive,
  { restoredAt, lock }: { restoredAt: Date; lock: HeldLock },
  onProgress: (progress: RestoreProgress) => void,
): Promise<string> {
  refuseIncompatible(deps, staged.manifest)
  if (source.expectedSha256 && staged.sha256 !== source.expectedSha256) {
    throw invalidArchive(
      `it has changed since the backup was made (SHA-256 ${staged.sha256}, recorded ${source.expectedSha256}).`,
    )
  }
  onProgress({ phase: 'safety_copy', bytes_done: staged.size, bytes_total: staged.size })
  const safetyCopy = await writeSafetyCopy(deps, restoredAt)
  try {
    onProgress({ phase: 'swapping', bytes_done: staged.size, bytes_total: staged.size })
    await eachAtOnce(staged.files, commitsInFlight, (file) => file.staged.commit(file.key))
    await staged.database.swapIn(
      restoreStatements(
        restoredAt,
        {
          id: staged.manifest.backup_id,
          size: staged.size,
          sha256: staged.sha256,
          manifestJson: JSON.stringify(staged.manifest),
          archivedBytes: staged.manifest.entries.reduce((total, entry) => total + entry.size, 0),
        },
        {
          token: lock.token,
          expiresAt: new Date(deps.clock.now().getTime() + lockLeaseMs),
          holder: { instanceId: deps.service.instanceId, liveness: deps.liveness },
          schemaVersion: staged.manifest.schema_version,
        },
      ),
    )
    // The swap may have outlasted the lease the row was written with; renew before anyone looks.
    await lock.renew().catch(() => {})
  } catch (error) {
    // The swap did not happen, so the copy of the untouched database is not needed either.
    await deps.backups.local.delete(safetyCopy).catch(() => {})
    throw error
  }
  return safetyCopy
}

async function discardStaged(staged: Partial<Pick<StagedArchive, 'database' | 'files'>>): Promise<void> {
  await staged.database?.discard().catch(() => {})
  for (const file of staged.files ?? []) await file.staged.discard().catch(() => {})
}

const incompatible = (detail: string) =>
  new VaultError('incompatible_archive', `The backup cannot be restored here: ${detail}`)

/**
 * Archives from a newer build or schema, of another database kind, or whose database this one
 * cannot read (an SQLite file on Cloudflare D1), are refused untouched.
 */
function refuseIncompatible(deps: RestoreDeps, manifest: BackupManifest): void {
  if (manifest.database_kind !== deps.database.kind) {
    throw incompatible(`it holds a ${manifest.database_kind} database and this install uses ${deps.database.kind}.`)
  }
  const snapshot = manifest.entries.find((entry) => entry.path.startsWith('db/'))
  if (snapshot) refuseUnreadableSnapshot(deps, snapshot.path)
  if (manifest.schema_version > latestSchemaVersion) {
    throw incompatible(
      `it has schema version ${manifest.schema_version}, newer than this build's ${latestSchemaVersion}; upgrade model-vault first.`,
    )
  }
  if (compareVersions(manifest.app_version, deps.service.version) > 0) {
    throw incompatible(
      `it was made by model-vault ${manifest.app_version}, newer than this ${deps.service.version}; upgrade model-vault first.`,
    )
  }
}

function refuseUnreadableSnapshot(deps: RestoreDeps, path: string): void {
  const readable = deps.database.restorableSnapshots
  if (readable.some((name) => path === `db/${name}`)) return
  throw incompatible(
    `it holds a database this install cannot read (${path}); this install uses ${deps.database.kind} and restores only ${readable.map((name) => `db/${name}`).join(' or ')}.` +
      (path.endsWith('.sqlite')
        ? ' An SQLite file cannot be loaded into Cloudflare D1: restore it on a Node install.'
        : ''),
  )
}

/** Compares `major.minor.patch` numerically; a pre-release suffix is ignored. */
function compareVersions(a: string, b: string): number {
  const parts = (version: string) =>
    version
      .replace(/[-+].*/s, '')
      .split('.')
      .map((part) => Number.parseInt(part, 10) || 0)
  const [left, right] = [parts(a), parts(b)]
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const difference = (left[i] ?? 0) - (right[i] ?? 0)
    if (difference !== 0) return Math.sign(difference)
  }
  return 0
}

/**
 * The current database as a database-only archive, `pre-restore-<time>-<id>.tar.gz`, in
 * the backup directory. Retention never prunes it. With the stores untouched by the
 * restore, it and the stores are the whole state from before the restore.
 */
async function writeSafetyCopy(deps: RestoreDeps, at: Date): Promise<string> {
  const id = crypto.randomUUID()
  const fileName = archiveFileName(id, at, 'pre-restore')
  await writeArchive(deps, { id, fileName, createdAt: at, includeFiles: false, onProgress: () => {} })
  return fileName
}

/** After the swap: migrations, keys and search index of the restored data, the catalogue, the report. */
async function finishRestore(
  deps: RestoreDeps,
  done: { source: ArchiveSource; staged: StagedArchive; restoredAt: Date; safetyCopy: string },
): Promise<RestoreResult> {
  const { db } = deps.database
  const schemaVersion = await migrateToLatest(db)
  // The restored data's printer credentials are sealed with its key; tokens must sign with its key too.
  await deps.keys.reload()
  await indexPendingModels(deps.database, () => deps.clock.now().toISOString())
  const registered = await reconcileBackupCatalogue(deps)
  const sessionsRevoked = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revoked_reason', '=', 'restore')
    .where('revoked_at', '=', done.restoredAt.toISOString())
    .executeTakeFirstOrThrow()
  const apiKeys = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select('users.username')
    .orderBy('users.username')
    .orderBy('api_keys.created_at')
    .execute()
  const { entries: _entries, ...manifest } = done.staged.manifest
  return {
    backup_id: manifest.backup_id,
    restored_at: done.restoredAt.toISOString(),
    source: {
      location: done.source.location,
      file_name: done.source.fileName,
      size: done.staged.size,
      sha256: done.staged.sha256,
    },
    manifest,
    schema_version: schemaVersion,
    safety_copy: done.safetyCopy,
    added: {
      blobs: done.staged.files.filter((file) => file.store === 'blobs').length,
      thumbnails: done.staged.files.filter((file) => file.store === 'thumbnails').length,
    },
    sessions_revoked: Number(sessionsRevoked.n),
    api_keys: apiKeys.map((key) => ({ ...toPublicApiKey(key), username: key.username })),
    backups_registered: registered,
  }
}
