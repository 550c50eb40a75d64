import { z } from '@hono/zod-openapi'
import { verdicts } from '../../core/printers/print-runs.js'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema } from '../common-schemas.js'
import { problemResponse } from '../problem.js'
import { binaryContent, exportHeaders, storedBytesHeaders } from '../response-docs.js'

const tags = ['Print history']

/** The largest photo of a print taken: 10 MiB, a phone's full-size JPEG with room to spare. */
export const maxPhotoBytes = 10 * 1024 * 1024

const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
})

export const PrintRunSchema = z
  .object({
    id: z.string().openapi({ description: 'The id of the dispatch that started the run.' }),
    printer_id: z.string().nullable().openapi({ description: 'Null once the printer is removed.' }),
    printer_name: z.string(),
    model_id: z.string().nullable().openapi({ description: "The model that holds the file now; null once it's gone." }),
    file_id: z.string().nullable(),
    file_name: z.string(),
    job_id: z.string().nullable().openapi({ description: 'The print queue job that sent it; null for a direct send.' }),
    user_id: z.string().nullable().openapi({ description: 'Who sent it (who queued the job).' }),
    state: z.enum(['printing', 'completed', 'cancelled', 'failed']).openapi({
      description:
        '`printing` until a status read of the printer shows how the run ended: `completed`, `cancelled` (stopped by someone) or `failed` (the host reports it failed, or the printer went into error).',
    }),
    started_at: z
      .string()
      .openapi({ format: 'date-time', description: 'When the printer was first seen printing it.' }),
    ended_at: z.string().nullable().openapi({ format: 'date-time', description: 'When the vault saw it end.' }),
    duration_s: z.number().int().nullable().openapi({ description: 'From start to end; null while it prints.' }),
    reason: z.string().nullable().openapi({ description: 'Why it did not complete, as the printer reported it.' }),
    filament_mm: z.number().nullable().openapi({ description: 'Filament used, mm.' }),
    filament_g: z.number().nullable().openapi({ description: 'Filament used, g.' }),
    filament_source: z.enum(['file', 'printer']).nullable().openapi({
      description:
        "`file`: the slicer's figure in the file (PrusaSlicer, OrcaSlicer, Bambu Studio, Cura and others; a sliced 3MF's plate); `printer`: the printer's own count once the run ended (Moonraker), for files that state none.",
    }),
    verdict: z.enum(verdicts).nullable().openapi({ description: "The user's verdict on the print." }),
    note: z.string().nullable(),
    photo: z
      .object({ content_type: z.string(), size: z.number().int() })
      .nullable()
      .openapi({ description: 'A photo of the print, served at `GET /api/v1/print-runs/{id}/photo`.' }),
  })
  .openapi('PrintRun')

const SummarySchema = z
  .object({
    runs: z.number().int(),
    printing: z.number().int(),
    completed: z.number().int(),
    cancelled: z.number().int(),
    failed: z.number().int(),
    success_rate: z.number().min(0).max(1).nullable().openapi({
      description: 'Completed runs over ended ones (completed, cancelled, failed); null before any ended.',
    }),
    filament_mm: z.number().openapi({ description: 'Filament used by all runs whose figure is known, mm.' }),
    filament_g: z.number().openapi({ description: 'Filament used by all runs whose figure is known, g.' }),
  })
  .openapi('PrintRunSummary')

const PageSchema = z
  .object({
    items: z.array(PrintRunSchema),
    next_cursor: z
      .string()
      .nullable()
      .openapi({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    summary: SummarySchema,
  })
  .openapi('PrintRunPage')

const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50).optional(),
  cursor: z.string().min(1).max(2000).optional().openapi({ description: '`next_cursor` of the previous page.' }),
})

const historyDescription = (whose: string) =>
  [
    `${whose} print runs, newest start first: each file printed once (sent by the print queue or directly), with its outcome, times, filament, and the verdict, note and photo given to it. A send that started no print is no run (see the dispatches).`,
    '',
    '`summary` counts every run of the history (not only the page): per outcome, the success rate and the filament used. Paging is by keyset: pass `next_cursor` as `cursor`; a cursor altered or made for another history answers 400 `invalid_cursor`.',
  ].join('\n')

const csvDescription = (whose: string) =>
  [
    `${whose} print runs, newest first, as a CSV download streamed as it is read, however long the history (RFC 4180: a header row, CRLF line ends, fields with commas, quotes or line breaks quoted and quotes doubled). Columns: \`id, started_at, ended_at, duration_s, outcome, printer, file, model_id, job_id, filament_mm, filament_g, filament_source, verdict, note, reason\`.`,
    '',
    "Text cells a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return, as OWASP's CSV-injection advice lists) get a leading `'` so they show as text.",
  ].join('\n')

const csvAnswer = {
  description: 'The history, as an attachment.',
  headers: exportHeaders,
  content: { 'text/csv': { schema: { type: 'string' as const } } },
}

/** A model's or a printer's history: its page of runs with the summary, and its CSV export. */
function historyRoutes<const K extends 'model' | 'printer'>(kind: K, whose: string) {
  const Kind = kind === 'model' ? 'Model' : 'Printer'
  const missing = problemResponse(`No such ${kind}.`)
  return {
    list: defineRoute(allow('user', 'read', 'print'), {
      method: 'get',
      path: `/api/v1/${kind}s/{id}/print-runs` as const,
      operationId: `list${Kind}PrintRuns`,
      tags,
      summary: `A ${kind}'s print history, with its success rate`,
      description: historyDescription(whose),
      request: { params: IdParamSchema, query: PageQuery },
      responses: {
        200: json('One page of runs and the summary of all.', PageSchema),
        400: problemResponse('The cursor was altered or belongs to another history (`invalid_cursor`).'),
        404: missing,
      },
    }),
    csv: defineRoute(allow('user', 'read', 'print'), {
      method: 'get',
      path: `/api/v1/${kind}s/{id}/print-runs.csv` as const,
      operationId: `export${Kind}PrintRuns`,
      tags,
      summary: `A ${kind}'s print history as CSV`,
      description: csvDescription(whose),
      request: { params: IdParamSchema },
      responses: { 200: csvAnswer, 404: missing },
    }),
  }
}

export const modelHistoryRoutes = historyRoutes('model', "The model's (the runs of the files it holds now)")
export const printerHistoryRoutes = historyRoutes('printer', "The printer's")

export const getRunRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/print-runs/{id}',
  operationId: 'getPrintRun',
  tags,
  summary: 'One print run',
  request: { params: IdParamSchema },
  responses: { 200: json('The run.', PrintRunSchema), 404: problemResponse('No print run has this id.') },
})

const reviewRefusals = {
  403: problemResponse(
    'The credential is valid but the run was sent by someone else (`forbidden`; only its sender or an admin reviews it), or it lacks the role or scope.',
  ),
  404: problemResponse('No print run has this id.'),
  409: problemResponse('The print is still running (`job_state_conflict`); review it once it has ended.'),
}

export const reviewRunRoute = defineRoute(allow('user', 'print'), {
  method: 'patch',
  path: '/api/v1/print-runs/{id}',
  operationId: 'reviewPrintRun',
  tags,
  summary: 'Give an ended print run a verdict and a note',
  description:
    'Sets the verdict (`good` or `failed`) and a note ("spaghetti at layer 40") of an ended run; a field left out stays as it is, `null` (or an empty note) clears it. Only the person who sent the print, or an admin, reviews it.',
  request: {
    params: IdParamSchema,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              verdict: z.enum(verdicts).nullable().optional(),
              note: z.string().max(2000).nullable().optional(),
            })
            .strict()
            .openapi('PrintRunReview', { example: { verdict: 'failed', note: 'spaghetti at layer 40' } }),
        },
      },
    },
  },
  responses: { 200: json('The run as it now is.', PrintRunSchema), ...reviewRefusals },
})

export const putRunPhotoRoute = defineRoute(
  allow('user', 'print'),
  {
    method: 'put',
    path: '/api/v1/print-runs/{id}/photo',
    operationId: 'putPrintRunPhoto',
    tags,
    summary: 'Attach a photo of the print',
    description:
      'The body is the image itself: JPEG, PNG or WebP, told by its first bytes (the declared type and any name are ignored), at most 10 MiB. It replaces the photo the run had. The photo is kept in the blob store, in backups, and by the orphan sweep while the run names it. Example: `curl -H "Authorization: Bearer $TOKEN" -T print.jpg $VAULT/api/v1/print-runs/$ID/photo`',
    request: {
      params: IdParamSchema,
      body: { required: true, content: binaryContent('image/jpeg', 'image/png', 'image/webp') },
    },
    responses: {
      200: json('The run, naming its photo.', PrintRunSchema),
      ...reviewRefusals,
      413: problemResponse('The photo is larger than 10 MiB (`payload_too_large`); it was not read past the limit.'),
      415: problemResponse(
        'Not a JPEG, PNG or WebP image, or one whose header is cut short (`unsupported_media_type`).',
      ),
    },
  },
  { maxBodyBytes: maxPhotoBytes },
)

export const getRunPhotoRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/print-runs/{id}/photo',
  operationId: 'getPrintRunPhoto',
  tags,
  summary: "A print run's photo",
  description:
    'The photo in the type it was stored as. Revalidated on each use (`no-cache` with its ETag), since a run can get another photo.',
  request: { params: IdParamSchema },
  responses: {
    200: {
      description: 'The image.',
      headers: storedBytesHeaders,
      content: binaryContent('image/jpeg', 'image/png', 'image/webp'),
    },
    304: { description: 'Not modified (the ETag matched).', headers: storedBytesHeaders },
    404: problemResponse('No print run has this id, or it has no photo.'),
  },
})

export const deleteRunPhotoRoute = defineRoute(allow('user', 'print'), {
  method: 'delete',
  path: '/api/v1/print-runs/{id}/photo',
  operationId: 'deletePrintRunPhoto',
  tags,
  summary: "Remove a print run's photo",
  request: { params: IdParamSchema },
  responses: {
    204: { description: 'Removed.' },
    ...reviewRefusals,
    404: problemResponse('No such run, or it has no photo.'),
  },
})
