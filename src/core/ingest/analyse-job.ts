import { type ClaimedJob, dropJobs, finishJob, maxAttempts, recountAnalysingOf } from '../analysis/analysis-queue.js'
import { putContentAddressed, streamOf } from '../blobs/put-content-addressed.js'
import { settleCover } from '../library/cover.js'
import type { FileFormat } from './file-formats.js'
import type { AnalysisDeps } from './ingest-deps.js'

/**
 * Renders one claimed content (thumbnail, preview, scaled image) and records it on every file
 * of those bytes, then settles the covers and the `analysing_files` of their models: one
 * transaction, written only while this process still holds the job's lease. A job whose every
 * file was deleted meanwhile is dropped. `signal` is the runner stopping: the job is then left
 * as it is, for the runner to give back.
 */
export async function analyseJob(
  deps: AnalysisDeps,
  owner: string,
  job: ClaimedJob,
  signal: AbortSignal,
): Promise<void> {
  const { db } = deps.database
  if (job.attempts > maxAttempts)
    return fail(
      deps,
      owner,
      job,
      `The rendering stopped ${maxAttempts} times before it finished: the process rendering it ended (a restart or a crash) or ran out of memory.`,
    )
  const file = await db.selectFrom('files').select('size').where('sha256', '=', job.sha256).executeTakeFirst()
  if (!file) return dropJobs(db, [job.sha256])
  let extracted: Awaited<ReturnType<AnalysisDeps['extractStoredFile']>>
  try {
    extracted = await deps.extractStoredFile(
      job.format as FileFormat,
      { sha256: job.sha256, size: Number(file.size) },
      { render: true },
    )
  } catch (error) {
    if (signal.aborted) return
    const held = await db.selectFrom('files').select('id').where('sha256', '=', job.sha256).executeTakeFirst()
    if (!held) return dropJobs(db, [job.sha256])
    return fail(
      deps,
      owner,
      job,
      `The file could not be read: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  if (signal.aborted) return
  const keep = (bytes: Uint8Array | undefined) =>
    bytes ? putContentAddressed(deps.thumbnails, deps.createSha256, streamOf(bytes)) : undefined
  const thumbnail = await keep(extracted.thumbnail?.bytes)
  const preview = await keep(extracted.preview?.bytes)
  // Nothing made and a reason given (over the time or memory budget, an image that does not decode).
  if (!thumbnail && !preview && extracted.warnings.length > 0)
    return fail(deps, owner, job, extracted.warnings.join(' '))
  const now = deps.clock.now().toISOString()
  await db.transaction().execute(async (trx) => {
    if (!(await finishJob(trx, { sha256: job.sha256, owner, now, state: 'done' }))) return
    const rendered = {
      ...(thumbnail && extracted.thumbnail
        ? { thumbnail_sha256: thumbnail.sha256, thumbnail_content_type: extracted.thumbnail.contentType }
        : {}),
      ...(preview && extracted.preview
        ? { preview_sha256: preview.sha256, preview_triangles: extracted.preview.triangles }
        : {}),
    }
    if (Object.keys(rendered).length > 0)
      await trx.updateTable('files').set(rendered).where('sha256', '=', job.sha256).execute()
    for (const modelId of await recountAnalysingOf(trx, job.sha256)) await settleCover(trx, modelId, true)
  })
}

async function fail(deps: AnalysisDeps, owner: string, job: ClaimedJob, reason: string): Promise<void> {
  const now = deps.clock.now().toISOString()
  deps.logger.warn('analysis failed', { sha256: job.sha256, format: job.format, reason })
  await deps.database.db.transaction().execute(async (trx) => {
    if (await finishJob(trx, { sha256: job.sha256, owner, now, state: 'failed', reason }))
      await recountAnalysingOf(trx, job.sha256)
  })
}
