import type { ExpressionBuilder, Kysely } from 'kysely'
import type { AnalysisState, Database } from '../db/schema.js'

/** A queued content as a runner claimed it. */
export interface ClaimedJob {
  sha256: string
  format: string
  /** Claims so far, this one included. */
  attempts: number
}

/**
 * Claims so far after which a job that never finished (its process stopped, or ran out of
 * memory, each time) is failed instead of claimed again.
 */
export const maxAttempts = 3

/** Finished jobs are kept this long: the rate and time left are counted from them. */
const keepFinishedMs = 3_600_000

/** Queues the rendering of stored content, in the transaction that stores its first file; a no-op if queued already. */
export async function queueAnalysis(
  trx: Kysely<Database>,
  job: { sha256: string; format: string; now: string },
): Promise<void> {
  await trx
    .insertInto('analysis_jobs')
    .values({ sha256: job.sha256, format: job.format, state: 'queued', queued_at: job.now })
    .onConflict((oc) => oc.column('sha256').doNothing())
    .execute()
}

/**
 * Takes up to `limit` jobs, oldest first, under a lease for `owner` until `leaseUntil`: queued
 * jobs, and running ones whose lease ran out (their process stopped). One statement, its
 * condition tested again on each row it updates, so two processes never take the same job.
 */
export async function claimJobs(
  db: Kysely<Database>,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<ClaimedJob[]> {
  const claimable = (eb: ExpressionBuilder<Database, 'analysis_jobs'>) =>
    eb.or([eb('state', '=', 'queued'), eb.and([eb('state', '=', 'running'), eb('lease_until', '<', claim.now)])])
  return db
    .updateTable('analysis_jobs')
    .set((eb) => ({
      state: 'running',
      lease_owner: claim.owner,
      lease_until: claim.leaseUntil,
      attempts: eb('attempts', '+', 1),
    }))
    .where((eb) =>
      eb.and([
        eb(
          'sha256',
          'in',
          eb
            .selectFrom('analysis_jobs')
            .select('sha256')
            .where(claimable)
            .orderBy('queued_at')
            .orderBy('sha256')
            .limit(claim.limit),
        ),
        claimable(eb),
      ]),
    )
    .returning(['sha256', 'format', 'attempts'])
    .execute()
}

/** Ends a job this owner holds: done, or failed with `reason`. False when its lease went to another process meanwhile. */
export async function finishJob(
  trx: Kysely<Database>,
  job: {
    sha256: string
    owner: string
    now: string
    state: Extract<AnalysisState, 'done' | 'failed'>
    reason?: string
  },
): Promise<boolean> {
  const result = await trx
    .updateTable('analysis_jobs')
    .set({ state: job.state, reason: job.reason ?? null, finished_at: job.now, lease_owner: null, lease_until: null })
    .where('sha256', '=', job.sha256)
    .where('state', '=', 'running')
    .where('lease_owner', '=', job.owner)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

/** Gives back the jobs `owner` holds, as a stopping process does, without counting the claim. */
export async function releaseJobs(db: Kysely<Database>, owner: string): Promise<void> {
  await db
    .updateTable('analysis_jobs')
    .set((eb) => ({ state: 'queued', lease_owner: null, lease_until: null, attempts: eb('attempts', '-', 1) }))
    .where('state', '=', 'running')
    .where('lease_owner', '=', owner)
    .execute()
}

/** Drops the jobs of contents no file holds any more (every file of them was deleted), queued or failed. */
export async function dropJobs(db: Kysely<Database>, sha256s: readonly string[]): Promise<void> {
  if (sha256s.length > 0) await db.deleteFrom('analysis_jobs').where('sha256', 'in', sha256s).execute()
}

/** Queues failed jobs again, all or one content's: answers how many. */
export async function retryFailed(db: Kysely<Database>, now: string, sha256?: string): Promise<number> {
  const result = await db
    .updateTable('analysis_jobs')
    .set({ state: 'queued', attempts: 0, reason: null, finished_at: null, queued_at: now })
    .where('state', '=', 'failed')
    .$if(sha256 !== undefined, (qb) => qb.where('sha256', '=', sha256 ?? ''))
    .executeTakeFirst()
  const retried = Number(result.numUpdatedRows)
  if (retried > 0) await recountAnalysingOf(db, sha256)
  return retried
}

/** Forgets finished jobs older than an hour. */
export async function pruneFinished(db: Kysely<Database>, now: Date): Promise<void> {
  await db
    .deleteFrom('analysis_jobs')
    .where('state', '=', 'done')
    .where('finished_at', '<', new Date(now.getTime() - keepFinishedMs).toISOString())
    .execute()
}

/** The files of a model whose content is queued or being rendered. */
export async function analysingFilesOf(db: Kysely<Database>, modelId: string): Promise<number> {
  const row = await db
    .selectFrom('files')
    .innerJoin('analysis_jobs', 'analysis_jobs.sha256', 'files.sha256')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('files.model_id', '=', modelId)
    .where('analysis_jobs.state', 'in', ['queued', 'running'])
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** Sets `analysing_files` again on the models holding `sha256` (every model with a queued job when none is named). */
export async function recountAnalysingOf(db: Kysely<Database>, sha256?: string): Promise<string[]> {
  const models = await db
    .selectFrom('files')
    .select('model_id')
    .distinct()
    .$if(sha256 !== undefined, (qb) => qb.where('sha256', '=', sha256 ?? ''))
    .$if(sha256 === undefined, (qb) =>
      qb.where('sha256', 'in', (eb) => eb.selectFrom('analysis_jobs').select('sha256').where('state', '=', 'queued')),
    )
    .execute()
  for (const { model_id } of models)
    await db
      .updateTable('models')
      .set({ analysing_files: await analysingFilesOf(db, model_id) })
      .where('id', '=', model_id)
      .execute()
  return models.map((model) => model.model_id)
}

/** One failed job as the queue reports it, with the files of its content. */
export interface AnalysisFailure {
  sha256: string
  reason: string
  failed_at: string
  attempts: number
  files: { id: string; name: string; model_id: string }[]
}

export interface AnalysisStatus {
  queued: number
  running: number
  failed: number
  /** Jobs finished in the last minute, per second; 0 when none. */
  rate_per_second: number
  /** At that rate, until the queue is empty; null when nothing finished in the last minute or nothing waits. */
  seconds_left: number | null
  /** The most recent failures, at most 100. */
  failures: AnalysisFailure[]
}

/** How the queue stands: how much waits, how fast it goes, what failed and why. */
export async function analysisStatus(db: Kysely<Database>, now: Date): Promise<AnalysisStatus> {
  const counts = await db
    .selectFrom('analysis_jobs')
    .select(['state', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('state', '!=', 'done')
    .groupBy('state')
    .execute()
  const count = (state: AnalysisState) => Number(counts.find((row) => row.state === state)?.count ?? 0)
  const minuteAgo = new Date(now.getTime() - 60_000).toISOString()
  const finished = await db
    .selectFrom('analysis_jobs')
    .select([(eb) => eb.fn.countAll<number | string>().as('count'), (eb) => eb.fn.min('finished_at').as('first')])
    .where('state', '=', 'done')
    .where('finished_at', '>=', minuteAgo)
    .executeTakeFirstOrThrow()
  const done = Number(finished.count)
  // Over the last minute, or over the seconds since the first of them when the work began within it.
  const seconds = finished.first ? Math.min(60, Math.max(1, (now.getTime() - Date.parse(finished.first)) / 1000)) : 60
  const rate = done / seconds
  const waiting = count('queued') + count('running')
  const failedRows = await db
    .selectFrom('analysis_jobs')
    .select(['sha256', 'reason', 'finished_at', 'attempts'])
    .where('state', '=', 'failed')
    .orderBy('finished_at', 'desc')
    .orderBy('sha256')
    .limit(100)
    .execute()
  const files =
    failedRows.length === 0
      ? []
      : await db
          .selectFrom('files')
          .select(['id', 'original_name', 'model_id', 'sha256'])
          .where(
            'sha256',
            'in',
            failedRows.map((row) => row.sha256),
          )
          .orderBy('created_at')
          .execute()
  return {
    queued: count('queued'),
    running: count('running'),
    failed: count('failed'),
    rate_per_second: Math.round(rate * 100) / 100,
    seconds_left: rate > 0 && waiting > 0 ? Math.ceil(waiting / rate) : null,
    failures: failedRows.map((row) => ({
      sha256: row.sha256,
      reason: row.reason ?? '',
      failed_at: row.finished_at ?? '',
      attempts: row.attempts,
      files: files
        .filter((file) => file.sha256 === row.sha256)
        .map((file) => ({ id: file.id, name: file.original_name, model_id: file.model_id })),
    })),
  }
}
