import type { Deps } from '../../core/deps.js'
import { controlPrint, type ExpectedPrint } from '../../core/farm/print-controls.js'
import { listDispatches, sendToPrinter } from '../../core/printers/dispatch.js'
import {
  confirmBedClear,
  connectPrinter,
  createPrinter,
  deletePrinter,
  getPrinterRow,
  listPrinterRows,
  observePrinter,
  type PrinterRow,
  updatePrinter,
} from '../../core/printers/printers.js'
import { controlsOf, type PrinterControl } from '../../core/printers/provider.js'
import type { PrinterProviderKind } from '../../core/printers/provider-kind.js'
import { createRouter } from '../app-env.js'
import {
  cancelRoute,
  confirmBedClearRoute,
  createPrinterRoute,
  deletePrinterRoute,
  diagnosticsRoute,
  dispatchesRoute,
  getPrinterRoute,
  listPrinterProvidersRoute,
  listPrintersRoute,
  pauseRoute,
  printerDispatchesRoute,
  resumeRoute,
  sendRoute,
  updatePrinterRoute,
} from './printers.routes.js'
import { credentialsJsonSchema } from './provider-document.js'
import { sendStatus } from './send-answers.js'

/** A printer as the API shows it: never its credentials, only whether it has some. */
async function presentPrinter(deps: Deps, listed: PrinterRow) {
  const { row, status } = await observePrinter(deps, listed)
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    address: row.address,
    has_credentials: row.credentials !== null,
    printer_profile_id: row.printer_profile_id,
    require_bed_clear: row.require_bed_clear === 1,
    bed_occupied_since: row.bed_occupied_since,
    created_at: row.created_at,
    updated_at: row.updated_at,
    status,
  }
}

/** A provider kind as the API shows it: its credentials as JSON Schema, for forms and clients. */
const presentProvider = (kind: PrinterProviderKind) => ({
  name: kind.name,
  label: kind.label,
  address: { description: kind.address.description, example: kind.address.example },
  credentials: credentialsJsonSchema(kind),
  controls: [...kind.controls],
  scripts: { runs: kind.scripts.runs, detail: kind.scripts.detail },
})

/** A control of a running print; a cancel may free the printer for the queue once its bed is cleared. */
async function control(
  { deps, principal }: { deps: Deps; principal: { userId: string | null } },
  id: string,
  which: PrinterControl,
  expected: ExpectedPrint,
) {
  const result = await controlPrint(deps, principal, id, which, expected)
  if (which === 'cancel') deps.printQueue?.wake()
  return result
}

export const printersRouter = createRouter()
  .openapi(listPrinterProvidersRoute, (c) => c.json({ items: c.var.deps.printers.providers.map(presentProvider) }, 200))
  .openapi(listPrintersRoute, async (c) => {
    const rows = await listPrinterRows(c.var.deps)
    return c.json({ items: await Promise.all(rows.map((row) => presentPrinter(c.var.deps, row))) }, 200)
  })
  .openapi(getPrinterRoute, async (c) =>
    c.json(await presentPrinter(c.var.deps, await getPrinterRow(c.var.deps, c.req.valid('param').id)), 200),
  )
  .openapi(createPrinterRoute, async (c) =>
    c.json(await presentPrinter(c.var.deps, await createPrinter(c.var.deps, c.req.valid('json'))), 201),
  )
  .openapi(updatePrinterRoute, async (c) =>
    c.json(
      await presentPrinter(c.var.deps, await updatePrinter(c.var.deps, c.req.valid('param').id, c.req.valid('json'))),
      200,
    ),
  )
  .openapi(deletePrinterRoute, async (c) => {
    await deletePrinter(c.var.deps, c.req.valid('param').id)
    return c.body(null, 204)
  })
  .openapi(confirmBedClearRoute, async (c) => {
    const { deps, principal } = c.var
    const cleared = await confirmBedClear(deps, c.req.valid('param').id, principal.userId)
    // A clear bed may let the print queue send the printer its next job.
    deps.printQueue?.wake(cleared.id)
    return c.json(await presentPrinter(deps, cleared), 200)
  })
  .openapi(diagnosticsRoute, async (c) => {
    const { deps } = c.var
    const row = await getPrinterRow(deps, c.req.valid('param').id)
    const provider = await connectPrinter(deps, row)
    const diagnostics = await provider.diagnostics()
    const capabilities = { ...diagnostics.capabilities, controls: controlsOf(provider) }
    return c.json(
      {
        printer_id: row.id,
        provider: row.provider,
        ...diagnostics,
        capabilities,
        checked_at: deps.clock.now().toISOString(),
      },
      200,
    )
  })
  .openapi(pauseRoute, (c) =>
    control(c.var, c.req.valid('param').id, 'pause', c.req.valid('json')).then((r) =>
      c.json(r, r.outcome === 'confirmed' ? 200 : 202),
    ),
  )
  .openapi(resumeRoute, (c) =>
    control(c.var, c.req.valid('param').id, 'resume', c.req.valid('json')).then((r) =>
      c.json(r, r.outcome === 'confirmed' ? 200 : 202),
    ),
  )
  .openapi(cancelRoute, (c) =>
    control(c.var, c.req.valid('param').id, 'cancel', c.req.valid('json')).then((r) =>
      c.json(r, r.outcome === 'confirmed' ? 200 : 202),
    ),
  )
  .openapi(sendRoute, async (c) => {
    const { dispatch } = await sendToPrinter(c.var.deps, c.var.principal, c.req.valid('param').id, c.req.valid('json'))
    return c.json(dispatch, sendStatus(dispatch.outcome))
  })
  .openapi(printerDispatchesRoute, async (c) =>
    c.json(
      {
        items: await listDispatches(c.var.deps, {
          printerId: c.req.valid('param').id,
          limit: c.req.valid('query').limit,
        }),
      },
      200,
    ),
  )
  .openapi(dispatchesRoute, async (c) =>
    c.json(
      {
        items: await listDispatches(c.var.deps, {
          modelId: c.req.valid('query').model_id,
          limit: c.req.valid('query').limit,
        }),
      },
      200,
    ),
  )
