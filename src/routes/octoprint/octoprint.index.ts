import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { VaultError } from '../../core/errors.js'
import type { IngestResult } from '../../core/ingest/ingest.js'
import type { FileRecord } from '../../core/library/records.js'
import { sendToPrinter } from '../../core/printers/dispatch.js'
import { getPrinterRow, type PrinterRow } from '../../core/printers/printers.js'
import { requireScope } from '../access.js'
import type { AppEnv } from '../app-env.js'
import { receiveUploadForm, registerStored, stageFile } from '../ingest/multipart-ingest.js'
import { sendAnswer } from '../printers/send-answers.js'
import { printerRoutes, vaultBase, vaultRoutes } from './octoprint.routes.js'
import { answerOctoPrintError, octoPrintNotFound, octoPrintValidationHook } from './octoprint-errors.js'

/** The OctoPrint version whose upload API the shim follows (Moonraker's shim claims the same). */
const followedOctoPrintVersion = '1.5.0'

/** OctoPrint's reading of a form flag. */
const isTrue = (value: string | undefined) => ['true', 'yes', 'y', '1'].includes((value ?? '').trim().toLowerCase())

/** The printer of a per-printer base (a 404 for an unknown id before any body is read), or null on the vault base. */
const addressedPrinter = (c: Context<AppEnv>): Promise<PrinterRow | null> => {
  const id = c.req.param('id')
  return id === undefined ? Promise.resolve(null) : getPrinterRow(c.var.deps, id)
}

/** `path` under the vault's own API, as an absolute URL (OctoPrint's refs are absolute), wherever the vault is mounted. */
function vaultApiUrl(c: Context<AppEnv>, path: string): string {
  const url = new URL(c.req.url)
  const mount = url.pathname.slice(0, url.pathname.indexOf(vaultBase.prefix))
  return `${url.origin}${mount}/api/v1${path}`
}

/**
 * Prints a file just stored, through the safe send; the dispatch id when the printer was seen
 * printing it. Every other ending is an error that says the file is in the vault, and why it
 * does not print.
 */
async function printStored(c: Context<AppEnv>, printer: PrinterRow | null, file: FileRecord): Promise<string> {
  const saved = `Saved in the vault as ${file.name}, but not printed`
  if (!printer) {
    throw new VaultError(
      'no_printer',
      `${saved}: this host address is the vault alone, which has no printer to start. To print, use a printer's address as the host (…/octoprint/printers/<printer id>); to only store files here, upload without printing.`,
    )
  }
  const { deps, principal } = c.var
  // The upload needed `upload`; printing also needs `print`, as POST /printers/{id}/send does.
  const send = async () => {
    requireScope(principal, ['print'])
    return sendToPrinter(deps, principal, printer.id, { file_id: file.id, start: true })
  }
  const { dispatch } = await send().catch((error: unknown) => {
    throw error instanceof VaultError
      ? new VaultError(error.code, `${saved}: ${error.message}`, { fieldErrors: error.fieldErrors })
      : error
  })
  // Started: printing, done, or (202) still being prepared by the printer.
  const answer = sendAnswer(dispatch.outcome)
  if (typeof answer === 'number') return dispatch.id
  throw new VaultError(answer, `${saved} on ${printer.name}: ${dispatch.detail} (dispatch ${dispatch.id})`)
}

function uploadAnswer(c: Context<AppEnv>, result: IngestResult, dispatchId: string | null) {
  const resource = vaultApiUrl(c, `/files/${result.file.id}`)
  return {
    done: true,
    files: {
      local: { name: result.file.name, origin: 'local' as const, refs: { resource, download: `${resource}/content` } },
    },
    effectiveSelect: dispatchId !== null,
    effectivePrint: dispatchId !== null,
    vault: { duplicate: result.duplicate, file_id: result.file.id, model_id: result.model.id, dispatch_id: dispatchId },
  }
}

const version = async (c: Context<AppEnv>) => {
  const printer = await addressedPrinter(c)
  const vault = `model-vault ${c.var.deps.service.version}`
  return {
    api: '0.1',
    server: followedOctoPrintVersion,
    text: `OctoPrint (${printer ? `${vault}, printer ${printer.name}` : vault})`,
  }
}

const server = async (c: Context<AppEnv>) => {
  await addressedPrinter(c)
  return { version: followedOctoPrintVersion, safemode: null }
}

const settings = async (c: Context<AppEnv>) => {
  await addressedPrinter(c)
  return { feature: { sdSupport: false, temperatureGraph: false }, plugins: {} }
}

const upload = async (c: Context<AppEnv>) => {
  const printer = await addressedPrinter(c)
  // A slicer's upload is stored as sent, a zip included: it is a file to print, not a library to unpack.
  const { kept, filename, fields } = await receiveUploadForm(c, (bytes, name) => stageFile(c, bytes, name))
  const result = await registerStored(c, kept, { filename, modelId: fields.model_id || undefined })
  const dispatchId = isTrue(fields.print) ? await printStored(c, printer, result.file) : null
  const answer = uploadAnswer(c, result, dispatchId)
  return c.json(answer, 201, { Location: answer.files.local.refs.resource })
}

/**
 * The OctoPrint-compatible upload target, at `/octoprint` (the vault alone) and
 * `/octoprint/printers/{id}` (a printer through the vault): a slicer's “OctoPrint” physical
 * printer can test, upload, and upload and print. Its own error handler answers in OctoPrint's
 * shape, and unknown paths under `/octoprint` answer 404 in that shape too. Its type forgets the
 * routes (no client is typed from it): their merged schema is too complex for `app.route`.
 */
export const octoPrintRouter: OpenAPIHono<AppEnv> = new OpenAPIHono<AppEnv>({ defaultHook: octoPrintValidationHook })
  .openapi(vaultRoutes.version, async (c) => c.json(await version(c), 200))
  .openapi(printerRoutes.version, async (c) => c.json(await version(c), 200))
  .openapi(vaultRoutes.server, async (c) => c.json(await server(c), 200))
  .openapi(printerRoutes.server, async (c) => c.json(await server(c), 200))
  .openapi(vaultRoutes.settings, async (c) => c.json(await settings(c), 200))
  .openapi(printerRoutes.settings, async (c) => c.json(await settings(c), 200))
  .openapi(vaultRoutes.upload, upload)
  .openapi(printerRoutes.upload, upload)

octoPrintRouter.all(`${vaultBase.prefix}/*`, octoPrintNotFound)
octoPrintRouter.onError(answerOctoPrintError)
