import { claimJobs, pruneFinished, releaseJobs } from '../analysis/analysis-queue.js'
import type { AnalysisRunner } from '../analysis/analysis-runner.js'
import type { StorageDeps } from '../blobs/storage-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'
import { analyseJob } from './analyse-job.js'
import type { ExtractStoredFile } from './extractor.js'

/** What rendering queued content takes. */
export interface AnalysisDeps extends Pick<RuntimeDeps, 'service' | 'database' | 'clock' | 'logger'>, StorageDeps {
  extractStoredFile: ExtractStoredFile
}

export interface AnalysisRunnerOptions {
  /** Contents rendered at once (the file readers' pool bounds the threads and memory). */
  concurrency: number
  /**
   * Contents rendered at once while uploads arrive: fewer, so rendering does not take the cores
   * that storing the uploads needs (on 2 cores, none: a large import is stored first, then rendered).
   */
  concurrencyWhileUploading: number
  /** How long after an upload the runner still counts uploads as arriving. */
  uploadQuietMs: number
  /** How long a claim holds: past it another process takes the job up (longer than any one file's budget). */
  leaseMs: number
  /** How often the queue is looked at without being woken: other processes' work, lapsed leases. */
  pollMs: number
}

export interface StoppableAnalysisRunner extends AnalysisRunner {
  /** Takes no more work, gives back the jobs it holds (uncounted) and waits for those in hand to settle. */
  stop(): Promise<void>
}

/** Finished jobs older than an hour are forgotten at most this often. */
const pruneEveryMs = 60_000

/**
 * Works through the analysis queue in the background: claims up to `concurrency` jobs under a
 * lease for this process, renders each (analyseJob) and claims again as each one ends, until
 * nothing is claimable; then waits to be woken (an upload queued work) or for the next poll.
 * Errors (a database that cannot be reached, a restore in progress) are logged and the next
 * poll tries again: the runner never stops the process.
 */
export function startAnalysisRunner(deps: AnalysisDeps, options: AnalysisRunnerOptions): StoppableAnalysisRunner {
  const owner = deps.service.instanceId
  const stopping = new AbortController()
  const inHand = new Set<Promise<void>>()
  const idleWaiters: (() => void)[] = []
  let looking: Promise<void> | undefined
  let lookAgain = false
  let prunedAt = 0
  let lastUploadAt = Number.NEGATIVE_INFINITY
  let quietTimer: ReturnType<typeof setTimeout> | undefined
  const poll = setInterval(() => wake(), options.pollMs)
  // Where timers can be unreferenced (Node), a waiting runner does not keep the process alive.
  ;(poll as { unref?: () => void }).unref?.()

  function wake(): void {
    if (stopping.signal.aborted) return
    if (looking) {
      lookAgain = true
      return
    }
    looking = look().finally(() => {
      looking = undefined
      if (lookAgain) {
        lookAgain = false
        wake()
      }
    })
  }

  const settleIdle = () => {
    for (const resolve of idleWaiters.splice(0)) resolve()
  }

  async function look(): Promise<void> {
    // A process that renders nothing (VAULT_ANALYSIS_WORKERS=0) is idle from the start.
    if (options.concurrency === 0) return settleIdle()
    const now = deps.clock.now()
    const room = concurrencyAt(now.getTime()) - inHand.size
    if (room <= 0) return
    try {
      if (now.getTime() - prunedAt >= pruneEveryMs) {
        await pruneFinished(deps.database.db, now)
        prunedAt = now.getTime()
      }
      const jobs = await claimJobs(deps.database.db, {
        owner,
        now: now.toISOString(),
        leaseUntil: new Date(now.getTime() + options.leaseMs).toISOString(),
        limit: room,
      })
      for (const job of jobs) {
        const work: Promise<void> = analyseJob(deps, owner, job, stopping.signal)
          .catch((error: unknown) =>
            deps.logger.warn('analysis interrupted', {
              sha256: job.sha256,
              error: error instanceof Error ? error.message : String(error),
            }),
          )
          .finally(() => {
            inHand.delete(work)
            wake()
          })
        inHand.add(work)
      }
      if (jobs.length === room) lookAgain = true
      else if (jobs.length === 0 && inHand.size === 0) settleIdle()
    } catch (error) {
      deps.logger.warn('analysis queue unavailable', { error: error instanceof Error ? error.message : String(error) })
    }
  }

  /** The concurrency allowed at `now`; while uploads arrive, a look is set for when they have gone quiet. */
  function concurrencyAt(now: number): number {
    const quietIn = lastUploadAt + options.uploadQuietMs - now
    if (quietIn <= 0 || options.concurrencyWhileUploading >= options.concurrency) return options.concurrency
    if (!quietTimer) {
      quietTimer = setTimeout(() => {
        quietTimer = undefined
        wake()
      }, quietIn)
      ;(quietTimer as { unref?: () => void }).unref?.()
    }
    return options.concurrencyWhileUploading
  }

  return {
    wake,
    uploadArrived() {
      lastUploadAt = deps.clock.now().getTime()
    },
    idle() {
      const idle = new Promise<void>((resolve) => idleWaiters.push(resolve))
      wake()
      return idle
    },
    async stop() {
      stopping.abort()
      clearInterval(poll)
      clearTimeout(quietTimer)
      settleIdle()
      await looking
      await releaseJobs(deps.database.db, owner).catch((error: unknown) =>
        deps.logger.warn('analysis jobs not given back', {
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      await Promise.allSettled(inHand)
    },
  }
}
