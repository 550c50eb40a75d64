import type { Context } from 'hono'
import { csvRow } from '../../core/library/csv.js'
import {
  deleteRunPhoto,
  eachRunPage,
  getRun,
  listRuns,
  type PrintRun,
  putRunPhoto,
  type RunOwner,
  reviewRun,
  runPhoto,
} from '../../core/printers/print-runs.js'
import { type AppEnv, createRouter } from '../app-env.js'
import { blobResponse } from '../blob-response.js'
import {
  deleteRunPhotoRoute,
  getRunPhotoRoute,
  getRunRoute,
  modelHistoryRoutes,
  printerHistoryRoutes,
  putRunPhotoRoute,
  reviewRunRoute,
} from './print-runs.routes.js'

const csvColumns = [
  'id',
  'started_at',
  'ended_at',
  'duration_s',
  'outcome',
  'printer',
  'file',
  'model_id',
  'job_id',
  'filament_mm',
  'filament_g',
  'filament_source',
  'verdict',
  'note',
  'reason',
] as const

const csvLine = (run: PrintRun) =>
  csvRow([
    run.id,
    run.started_at,
    run.ended_at ?? '',
    run.duration_s ?? '',
    run.state,
    run.printer_name,
    run.file_name,
    run.model_id ?? '',
    run.job_id ?? '',
    run.filament_mm ?? '',
    run.filament_g ?? '',
    run.filament_source ?? '',
    run.verdict ?? '',
    run.note ?? '',
    run.reason ?? '',
  ])

/** The history as CSV, streamed a page of runs at a time; an unknown owner is a 404 before the answer starts. */
async function csvAnswer(c: Context<AppEnv>, owner: RunOwner, name: string) {
  const pages = eachRunPage(c.var.deps, owner)
  const first = await pages.next()
  const encoder = new TextEncoder()
  const rows = (runs: PrintRun[]) => encoder.encode(runs.map(csvLine).join(''))
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvRow([...csvColumns])))
      if (first.value) controller.enqueue(rows(first.value))
    },
    async pull(controller) {
      const page = await pages.next()
      if (page.done) controller.close()
      else controller.enqueue(rows(page.value))
    },
    async cancel() {
      await pages.return(undefined)
    },
  })
  const day = c.var.deps.clock.now().toISOString().slice(0, 10)
  return c.body(body, 200, {
    'Content-Type': 'text/csv; charset=utf-8; header=present',
    'Content-Disposition': `attachment; filename="print-history-${name}-${day}.csv"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
}

export const printRunsRouter = createRouter()
  .openapi(modelHistoryRoutes.list, async (c) =>
    c.json(await listRuns(c.var.deps, { modelId: c.req.valid('param').id }, pageOf(c.req.valid('query'))), 200),
  )
  .openapi(printerHistoryRoutes.list, async (c) =>
    c.json(await listRuns(c.var.deps, { printerId: c.req.valid('param').id }, pageOf(c.req.valid('query'))), 200),
  )
  .openapi(modelHistoryRoutes.csv, (c) => csvAnswer(c, { modelId: c.req.valid('param').id }, 'model'))
  .openapi(printerHistoryRoutes.csv, (c) => csvAnswer(c, { printerId: c.req.valid('param').id }, 'printer'))
  .openapi(getRunRoute, async (c) => c.json(await getRun(c.var.deps, c.req.valid('param').id), 200))
  .openapi(reviewRunRoute, async (c) =>
    c.json(await reviewRun(c.var.deps, c.var.principal, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(putRunPhotoRoute, async (c) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer())
    return c.json(await putRunPhoto(c.var.deps, c.var.principal, c.req.valid('param').id, bytes), 200)
  })
  .openapi(getRunPhotoRoute, async (c) => {
    const photo = await runPhoto(c.var.deps, c.req.valid('param').id)
    const answer = await blobResponse(c, {
      store: c.var.deps.blobs,
      key: photo.key,
      size: photo.size,
      contentType: photo.contentType,
    })
    // One URL, and a run can get another photo: revalidate by the ETag on each use.
    answer.headers.set('Cache-Control', 'private, no-cache')
    return answer
  })
  .openapi(deleteRunPhotoRoute, async (c) => {
    await deleteRunPhoto(c.var.deps, c.var.principal, c.req.valid('param').id)
    return c.body(null, 204)
  })

const pageOf = (query: { limit?: number | undefined; cursor?: string | undefined }) => ({
  limit: query.limit ?? 50,
  cursor: query.cursor,
})
