import type { BackupDeps } from '../backup/backup-deps.js'
import { parseArchiveFileName } from '../backup/manifest.js'
import type { BlobStore, Leftovers, ListedBlob } from '../blobs/blob-store.js'
import { VaultError } from '../errors.js'
import { referencedContent, releaseContent } from '../library/content-release.js'
import { isMaintenanceRunning } from '../runtime/maintenance-lock.js'

export type GarbageDeps = Pick<
  BackupDeps,
  'database' | 'blobs' | 'thumbnails' | 'createSha256' | 'backups' | 'clock' | 'logger'
>

export interface GarbageOptions {
  /** Count what would go, delete nothing. */
  dryRun: boolean
  /** Blobs written more recently than this are kept: an upload may be about to register them. */
  graceMs: number
}

/** One store's sweep: what went (or would go, in a dry run) and what was kept and why. */
export interface StoreSweep {
  removed: number
  removed_bytes: number
  /** Unreferenced, but younger than the grace period. */
  kept_young: number
  /** Unreferenced, but stored before a restore whose safety copy is still kept, which may need them. */
  kept_for_safety_copy: number
  kept_for_safety_copy_bytes: number
}

export interface GarbageReport {
  dry_run: boolean
  /** False when a backup or restore started meanwhile: the sweep stopped, the rest waits for the next. */
  completed: boolean
  blobs: StoreSweep
  thumbnails: StoreSweep
  /** Staged uploads of stopped processes removed (a dry run removes and counts none). */
  staging: Leftovers
}

/** Each batch holds new file rows back while it is checked and deleted: small batches keep that short. */
const batchSize = 50

/**
 * Deletes blobs and thumbnails no row refers to: left by uploads killed between storing the
 * bytes and registering them, by deletions whose clean-up a crash or a backup held back, and
 * by restores (which never delete files). Also removes the staging leftovers of stopped
 * processes. Safe beside everything else that runs:
 * - uploads: a blob younger than `graceMs` is kept, and each deletion goes through
 *   `releaseContent`, which blocks new file rows while it checks and deletes; an upload that
 *   still registers a deleted blob notices (`confirmStoredContent`) and answers 409;
 * - backups and restores: none may run at the start (409 `maintenance_in_progress`), and one
 *   that starts meanwhile stops the sweep at the next batch;
 * - restores' safety copies: they hold the database only and rely on the stores keeping every
 *   blob from before the restore, so while one is kept, blobs older than it are kept too.
 */
export async function collectGarbage(deps: GarbageDeps, options: GarbageOptions): Promise<GarbageReport> {
  const now = deps.clock.now()
  if (await isMaintenanceRunning(deps.database.db, now)) {
    throw new VaultError(
      'maintenance_in_progress',
      'A backup or restore is running; collect garbage when it has finished.',
    )
  }
  const sweep = {
    youngAfter: now.getTime() - options.graceMs,
    safetyCopyAt: await newestSafetyCopyTime(deps),
    dryRun: options.dryRun,
  }
  const blobs = await sweepStore(deps, deps.blobs, 'blobs', sweep)
  const thumbnails = blobs.completed
    ? await sweepStore(deps, deps.thumbnails, 'thumbnails', sweep)
    : { ...emptySweep(), completed: false }
  const staging = { files: 0, bytes: 0 }
  if (!options.dryRun) {
    for (const store of [deps.blobs, deps.thumbnails]) {
      const removed = await store.removeLeftovers()
      staging.files += removed.files
      staging.bytes += removed.bytes
    }
  }
  const { completed: blobsCompleted, ...blobCounts } = blobs
  const { completed: thumbnailsCompleted, ...thumbnailCounts } = thumbnails
  const report = {
    dry_run: options.dryRun,
    completed: blobsCompleted && thumbnailsCompleted,
    blobs: blobCounts,
    thumbnails: thumbnailCounts,
    staging,
  }
  deps.logger.info(options.dryRun ? 'garbage collection dry run' : 'garbage collected', {
    completed: report.completed,
    blobs_removed: blobCounts.removed,
    blobs_removed_bytes: blobCounts.removed_bytes,
    thumbnails_removed: thumbnailCounts.removed,
    thumbnails_removed_bytes: thumbnailCounts.removed_bytes,
    kept_young: blobCounts.kept_young + thumbnailCounts.kept_young,
    kept_for_safety_copy: blobCounts.kept_for_safety_copy + thumbnailCounts.kept_for_safety_copy,
    staging_files_removed: staging.files,
    staging_bytes_removed: staging.bytes,
  })
  return report
}

const emptySweep = (): StoreSweep => ({
  removed: 0,
  removed_bytes: 0,
  kept_young: 0,
  kept_for_safety_copy: 0,
  kept_for_safety_copy_bytes: 0,
})

async function sweepStore(
  deps: GarbageDeps,
  store: BlobStore,
  kind: 'blobs' | 'thumbnails',
  sweep: { youngAfter: number; safetyCopyAt: number | null; dryRun: boolean },
): Promise<StoreSweep & { completed: boolean }> {
  const counts = emptySweep()
  const contentOf = (keys: string[]) =>
    kind === 'blobs' ? { blobs: keys, thumbnails: [] } : { blobs: [], thumbnails: keys }
  const keptBecause = (blob: ListedBlob) => {
    const writtenAt = blob.modifiedAt.getTime()
    if (writtenAt > sweep.youngAfter) return 'young'
    return sweep.safetyCopyAt !== null && writtenAt <= sweep.safetyCopyAt ? 'safety copy' : null
  }
  /** Unreferenced keys among these: deleted, or in a dry run only found. Null: a backup or restore started. */
  const release = async (keys: string[]): Promise<Set<string> | null> => {
    if (keys.length === 0) return new Set()
    if (sweep.dryRun) {
      const referenced = await referencedContent(deps.database.db, contentOf(keys))
      return new Set(keys.filter((key) => !referenced.has(key)))
    }
    const released = await releaseContent(deps, contentOf(keys))
    return released && new Set([...released.blobs, ...released.thumbnails])
  }
  const flush = async (batch: ListedBlob[]): Promise<boolean> => {
    const kept = batch.filter((blob) => keptBecause(blob) !== null)
    const referenced = await referencedContent(deps.database.db, contentOf(kept.map((blob) => blob.key)))
    for (const blob of kept) {
      if (referenced.has(blob.key)) continue
      if (keptBecause(blob) === 'young') counts.kept_young++
      else {
        counts.kept_for_safety_copy++
        counts.kept_for_safety_copy_bytes += blob.size
      }
    }
    const candidates = batch.filter((blob) => keptBecause(blob) === null)
    const unreferenced = await release(candidates.map((blob) => blob.key))
    if (!unreferenced) return false
    for (const blob of candidates) {
      if (!unreferenced.has(blob.key)) continue
      counts.removed++
      counts.removed_bytes += blob.size
    }
    return true
  }

  let batch: ListedBlob[] = []
  for await (const blob of store.list()) {
    batch.push(blob)
    if (batch.length < batchSize) continue
    if (!(await flush(batch))) return { ...counts, completed: false }
    batch = []
  }
  const completed = await flush(batch)
  return { ...counts, completed }
}

/**
 * When the newest restore safety copy in the backup directory was made (its name says), plus
 * a second for the name's rounding; null when none is kept.
 */
async function newestSafetyCopyTime(deps: GarbageDeps): Promise<number | null> {
  const made = (await deps.backups.local.list()).flatMap(
    (archive) => parseArchiveFileName(archive.name, 'pre-restore')?.createdAt.getTime() ?? [],
  )
  return made.length === 0 ? null : Math.max(...made) + 1000
}

/**
 * Collects garbage every `intervalMs` until stopped, the first time after at most ten
 * minutes (a process that restarts often still gets a sweep). A run that a backup or restore
 * held back, or that failed, is logged and tried again at the next interval.
 */
export function scheduleGarbageCollection(
  deps: GarbageDeps,
  options: { intervalMs: number; graceMs: number },
): { stop(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const run = async () => {
    try {
      await collectGarbage(deps, { dryRun: false, graceMs: options.graceMs })
    } catch (error) {
      deps.logger.warn('scheduled garbage collection did not run', {
        error: error instanceof Error ? error.message : String(error),
      })
    }
    if (!stopped) timer = setTimeout(run, options.intervalMs)
  }
  timer = setTimeout(run, Math.min(options.intervalMs, firstRunAfterMs))
  return {
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}

const firstRunAfterMs = 10 * 60_000
