import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import { holderIsGone } from '../runtime/db-lock.js'
import { lastRestoreMarkName, maintenanceLockName } from '../runtime/maintenance-lock.js'
import type { ProcessLiveness } from '../runtime/process-liveness.js'
import type { BackupDeps } from './backup-deps.js'
import type { RestoreProgress } from './restore-progress.js'

/**
 * What one process knows of restores run by any process sharing its database: whether one runs
 * now (read from the maintenance lock, with the progress its holder writes there; a holder that is
 * gone, such as a killed restore, runs nothing), and, when a restore swapped the data in since the
 * last look, reloads the keys the restored data carries (token-signing keys and the
 * printer-credentials key, unless configured) and forgets the credentials confirmed before it.
 */
export interface RestoreWatch {
  /**
   * The running restore's progress, or null. Looks in the database at most every `maxAgeMs`, and
   * answers what it saw at once (not as a promise) in between: every API request asks, and a
   * promise to await is a noticeable part of a cheap request's cost. While a restore was last seen
   * running it answers that at once and looks again meanwhile, so a request never waits on a
   * database a restore is swapping.
   */
  running(): RestoreProgress | null | Promise<RestoreProgress | null>
  /** Forgets what was seen, so the next call looks again (after this process's own restore). */
  forget(): void
}

/** How soon every process sharing the database sees a restore another one began (its lock row). */
export const restoreSeenWithinMs = 500

const notYetReported: RestoreProgress = { phase: 'verifying', bytes_done: 0, bytes_total: null }

/** What the lock table says of restores, as read through `db` (a transaction's connection, or any). */
export interface RestoreLocks {
  /** The progress of the restore whose holder lives, or null when none runs. */
  running: RestoreProgress | null
  /** Whether that restore has swapped its data in: the last restore's mark carries its token. */
  swapped: boolean
  /** The token of the last restore that swapped its data in, or null. */
  mark: string | null
}

export async function readRestoreLocks(
  db: Kysely<Database>,
  now: Date,
  liveness: ProcessLiveness | null,
): Promise<RestoreLocks> {
  const rows = await db
    .selectFrom('locks')
    .selectAll()
    .where('name', 'in', [maintenanceLockName, lastRestoreMarkName])
    .execute()
  const lock = rows.find((row) => row.name === maintenanceLockName)
  const mark = rows.find((row) => row.name === lastRestoreMarkName)?.owner ?? null
  if (lock?.purpose !== 'restore' || holderIsGone(lock, now, liveness)) return { running: null, swapped: false, mark }
  const running = lock.progress ? (JSON.parse(lock.progress) as RestoreProgress) : notYetReported
  return { running, swapped: mark === lock.owner, mark }
}

export function createRestoreWatch(
  deps: Pick<BackupDeps, 'database' | 'clock' | 'keys' | 'logger' | 'liveness' | 'confirmedCredentials'>,
  maxAgeMs = restoreSeenWithinMs,
): RestoreWatch {
  let seen: { running: RestoreProgress | null; at: number } | null = null
  /** The last restore mark seen: undefined before the first look; '' for "reload when the restore ends". */
  let mark: string | null | undefined
  let looking: Promise<RestoreProgress | null> | null = null

  async function look(): Promise<RestoreProgress | null> {
    const now = deps.clock.now()
    const { running, mark: latestMark } = await readRestoreLocks(deps.database.db, now, deps.liveness)
    if (running) {
      // First seen mid-restore: the mark it will leave is unknown, so reload once it has ended.
      mark ??= ''
    } else {
      // On the first look any mark may be newer than the keys this process loaded: reload once.
      if (latestMark !== (mark ?? null)) {
        await deps.keys.reload()
        // The restore ended every session: none may be answered from what was confirmed before it.
        deps.confirmedCredentials.forget()
        deps.logger.info('the data was restored since the keys were loaded: keys reloaded', { restore: latestMark })
      }
      mark = latestMark
    }
    seen = { running, at: now.getTime() }
    return running
  }

  function lookOnce(): Promise<RestoreProgress | null> {
    looking ??= look()
      .catch((error: Error) => {
        // The lock table may be mid-swap or unmigrated; keep the last answer and look again next time.
        deps.logger.warn('checking for a restore failed', { error: error.message })
        return seen?.running ?? null
      })
      .finally(() => (looking = null))
    return looking
  }

  return {
    running() {
      if (seen && deps.clock.now().getTime() - seen.at < maxAgeMs) return seen.running
      if (seen?.running) {
        void lookOnce()
        return seen.running
      }
      return lookOnce()
    },
    forget() {
      seen = null
    },
  }
}
