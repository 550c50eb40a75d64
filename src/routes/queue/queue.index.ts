import type { Deps } from '../../core/deps.js'
import { createJob } from '../../core/farm/create-job.js'
import { lastClearings, releasePrinter, setFarmPrinter, toFarmPrinter } from '../../core/farm/farm-printers.js'
import { cancelJob, holdJob, markPrinted, releaseJob, requeueJob } from '../../core/farm/job-transitions.js'
import { getJobRow, queuePage, toPrintJob } from '../../core/farm/print-job.js'
import { changeJob, moveJob } from '../../core/farm/queue-order.js'
import { listPrinterRows } from '../../core/printers/printers.js'
import { createRouter } from '../app-env.js'
import {
  cancelJobRoute,
  changeJobRoute,
  createJobRoute,
  getJobRoute,
  holdJobRoute,
  listFarmPrintersRoute,
  listQueueRoute,
  markJobPrintedRoute,
  moveJobRoute,
  releaseJobRoute,
  releasePrinterRoute,
  requeueJobRoute,
  setFarmPrinterRoute,
} from './queue.routes.js'

const now = (c: { var: { deps: Deps } }) => c.var.deps.clock.now().toISOString()

/** A change that may let a job go: the dispatcher looks at once instead of at its next interval. */
function woken<T>(c: { var: { deps: Deps } }, result: T): T {
  c.var.deps.printQueue?.wake()
  return result
}

export const queueRouter = createRouter()
  .openapi(listFarmPrintersRoute, async (c) => {
    const clearings = await lastClearings(c.var.deps.database.db)
    const rows = await listPrinterRows(c.var.deps)
    return c.json({ items: rows.map((row) => toFarmPrinter(row, clearings.get(row.id))) }, 200)
  })
  .openapi(setFarmPrinterRoute, async (c) => {
    const row = await setFarmPrinter(c.var.deps, c.req.valid('param').id, c.req.valid('json'))
    return c.json(woken(c, toFarmPrinter(row, (await lastClearings(c.var.deps.database.db, row.id)).get(row.id))), 200)
  })
  .openapi(releasePrinterRoute, async (c) => {
    const row = await releasePrinter(c.var.deps, c.req.valid('param').id)
    return c.json(woken(c, toFarmPrinter(row, (await lastClearings(c.var.deps.database.db, row.id)).get(row.id))), 200)
  })
  .openapi(listQueueRoute, async (c) => {
    const { state, limit, cursor } = c.req.valid('query')
    const states = state ? [state] : (['queued', 'held', 'dispatching', 'printing'] as const)
    const key = c.var.deps.keys.current().signingKeys.current.secret
    const page = await queuePage(c.var.deps.database.db, key, { states, limit, cursor })
    return c.json({ items: page.items.map(toPrintJob), next_cursor: page.next_cursor }, 200)
  })
  .openapi(createJobRoute, async (c) => {
    const row = await createJob(c.var.deps, c.req.valid('json'), {
      userId: c.var.principal.userId,
      now: now(c),
    })
    return c.json(woken(c, toPrintJob(row)), 201)
  })
  .openapi(getJobRoute, async (c) =>
    c.json(toPrintJob(await getJobRow(c.var.deps.database.db, c.req.valid('param').id)), 200),
  )
  .openapi(changeJobRoute, async (c) =>
    c.json(
      woken(
        c,
        toPrintJob(await changeJob(c.var.deps.database.db, c.req.valid('param').id, c.req.valid('json'), now(c))),
      ),
      200,
    ),
  )
  .openapi(moveJobRoute, async (c) =>
    c.json(
      woken(c, toPrintJob(await moveJob(c.var.deps.database.db, c.req.valid('param').id, c.req.valid('json'), now(c)))),
      200,
    ),
  )
  .openapi(holdJobRoute, async (c) =>
    c.json(toPrintJob(await holdJob(c.var.deps, c.req.valid('param').id, now(c))), 200),
  )
  .openapi(releaseJobRoute, async (c) =>
    c.json(woken(c, toPrintJob(await releaseJob(c.var.deps, c.req.valid('param').id, now(c)))), 200),
  )
  .openapi(cancelJobRoute, async (c) =>
    c.json(toPrintJob(await cancelJob(c.var.deps, c.req.valid('param').id, now(c))), 200),
  )
  .openapi(markJobPrintedRoute, async (c) =>
    c.json(woken(c, toPrintJob(await markPrinted(c.var.deps, c.req.valid('param').id, now(c)))), 200),
  )
  .openapi(requeueJobRoute, async (c) =>
    c.json(woken(c, toPrintJob(await requeueJob(c.var.deps, c.req.valid('param').id, now(c)))), 200),
  )
