import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema, idField } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Print queue']
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
})
const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
})
const exampleId = '0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b'

const TargetSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('printer'), printer_id: idField() }).strict(),
    z
      .object({
        kind: z.literal('group'),
        group: z.string().trim().min(1).max(100).openapi({ example: 'petg-farm' }),
      })
      .strict(),
    z.object({ kind: z.literal('any') }).strict(),
  ])
  .openapi('PrintTarget', {
    description:
      'Where the job may print: one printer, any printer tagged with a group (`PATCH /api/v1/farm/printers/{id}`), or any compatible printer.',
    example: { kind: 'group', group: 'petg-farm' },
  })

const priorityField = z.number().int().min(-100).max(100).openapi({
  description: 'Higher goes first; jobs of one priority go in their order. Default 0.',
  example: 10,
})
const maxAttemptsField = z.number().int().min(1).max(10).openapi({
  description:
    'Failed prints after which the job fails instead of being queued again (each failure holds its printer). Default 3.',
  example: 3,
})
const acceptWarningsField = z.boolean().openapi({
  description:
    'Send it where it breaks no compatibility rule even though some could not be checked (a value the file or the printer does not state). Off by default: such a job waits, saying which.',
})

export const PrintJobSchema = z
  .object({
    id: z.string(),
    model_id: z.string(),
    file_ids: z.array(z.string()).openapi({ description: 'The files printed as one set, in order.' }),
    copies: z.number().int(),
    copies_done: z.number().int(),
    next_file: z.number().int().openapi({ description: 'The index in `file_ids` the current copy prints next.' }),
    target: TargetSchema,
    priority: z.number().int(),
    position: z.number().openapi({ description: 'Its order within its priority, lower first.' }),
    state: z.enum(['queued', 'held', 'dispatching', 'printing', 'completed', 'failed', 'cancelled']).openapi({
      description:
        '`queued` waits for a printer; `held` waits for a person (held from the queue, or the vault could not tell whether its part printed: `last_error` says why); `dispatching` is being sent; `printing` is on `printer_id`; it ends `completed`, `failed` (after `max_attempts` failed prints) or `cancelled`.',
    }),
    attempts: z.number().int().openapi({ description: 'Failed prints so far.' }),
    max_attempts: z.number().int(),
    wait_reason: z.string().nullable().openapi({
      description: 'Why a waiting job waits, as the last dispatch saw the printers.',
      example: 'no compatible printer ready: bed not confirmed clear on 3 printers',
    }),
    last_error: z.string().nullable().openapi({
      description: 'Why its last send or print failed.',
      example: 'voron: the printer reports the job failed',
    }),
    accept_warnings: z.boolean(),
    printer_id: z
      .string()
      .nullable()
      .openapi({ description: 'The printer it is sent to or prints on, then the last one.' }),
    dispatch_id: z.string().nullable().openapi({ description: 'The dispatch record of its current or last send.' }),
    created_by: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    started_at: z.string().nullable().openapi({ format: 'date-time' }),
    finished_at: z.string().nullable().openapi({ format: 'date-time' }),
    paused_at: z.string().nullable().openapi({
      format: 'date-time',
      description:
        'When its print was paused: from the vault (`POST /api/v1/printers/{id}/pause`), or at the printer itself (its screen, its own web page, a filament runout), as the dispatcher next sees it; null while it prints on, and once it resumes or ends.',
    }),
  })
  .openapi('PrintJob')

const jobAnswer = json('The job.', PrintJobSchema)

export const listQueueRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/queue',
  operationId: 'listPrintQueue',
  tags,
  summary: 'The print queue, in order',
  description: [
    'Jobs in the order they go to printers: higher priority first, then their position. Each waiting job says why it',
    'waits (`wait_reason`). By default the open jobs (queued, held, being sent, printing); `state` picks others.',
    'A page holds `limit` jobs; pass `next_cursor` as `cursor` for the next one, which follows on from the last job',
    'of this page wherever jobs were sent or moved meanwhile. A cursor altered or made for another `state` answers 400',
    '`invalid_cursor`.',
  ].join(' '),
  request: {
    query: z.object({
      state: z
        .enum(['queued', 'held', 'dispatching', 'printing', 'completed', 'failed', 'cancelled'])
        .optional()
        .openapi({ description: 'Only the jobs in this state.', example: 'queued' }),
      limit: z.coerce.number().int().min(1).max(1000).default(200).openapi({ example: 200 }),
      cursor: z.string().min(1).max(2000).optional().openapi({ description: '`next_cursor` of the previous page.' }),
    }),
  },
  responses: {
    200: json(
      'A page of the jobs.',
      z
        .object({
          items: z.array(PrintJobSchema),
          next_cursor: z
            .string()
            .nullable()
            .openapi({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
        })
        .openapi('PrintQueue'),
    ),
    400: problemResponse('The cursor was altered or belongs to another `state` (`invalid_cursor`).'),
    422: problemResponse('The query is not valid.'),
  },
})

export const CreateJobSchema = z
  .object({
    file_ids: z
      .array(idField())
      .min(1)
      .max(50)
      .openapi({
        description:
          'Print-ready files of one model (G-code, binary G-code, a sliced `.gcode.3mf`), printed as one set in this order.',
        example: [exampleId],
      }),
    copies: z.number().int().min(1).max(1000).default(1).openapi({ description: 'Copies of the set.', example: 4 }),
    target: TargetSchema.default({ kind: 'any' }),
    priority: priorityField.default(0),
    max_attempts: maxAttemptsField.default(3),
    accept_warnings: acceptWarningsField.default(false),
  })
  .strict()
  .openapi('NewPrintJob', { example: { file_ids: [exampleId], copies: 4, target: { kind: 'any' } } })

export const createJobRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/queue',
  operationId: 'createPrintJob',
  tags,
  summary: 'Queue a print job',
  description: [
    'Queues files of a model to print as a set, `copies` times, at the end of the queue. The dispatcher sends each file',
    'to a ready printer of the target whose bed is confirmed clear and that the file fits: the printer model, nozzle',
    'diameter, filament type, bed size and print height the slicer wrote into the file, against the printer profile and',
    'the filament loaded (`PATCH /api/v1/farm/printers/{id}`). A value either side does not state is a warning the job',
    'must accept (`accept_warnings`); a broken rule keeps the job off that printer. 422 for unknown files, files of',
    'several models, a file that is not print-ready (`not_gcode`), or an unknown target printer.',
  ].join(' '),
  request: jsonBody(CreateJobSchema),
  responses: {
    201: json('The queued job.', PrintJobSchema),
    422: problemResponse('The job is not valid.'),
  },
})

export const getJobRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/queue/{id}',
  operationId: 'getPrintJob',
  tags,
  summary: 'One print job',
  description: 'The job, with its state, copies done and why it waits.',
  request: { params: IdParamSchema },
  responses: { 200: jobAnswer, 404: problemResponse('No such job.') },
})

export const changeJobRoute = defineRoute(allow('user', 'manage'), {
  method: 'patch',
  path: '/api/v1/queue/{id}',
  operationId: 'changePrintJob',
  tags,
  summary: 'Change a job’s priority or tries',
  description:
    'Changes the priority, `max_attempts` or `accept_warnings` of a job that has not ended. 409 for a completed or cancelled job.',
  request: {
    params: IdParamSchema,
    ...jsonBody(
      z
        .object({
          priority: priorityField.optional(),
          max_attempts: maxAttemptsField.optional(),
          accept_warnings: acceptWarningsField.optional(),
        })
        .strict()
        .openapi('PrintJobChange', { example: { priority: 50 } }),
    ),
  },
  responses: {
    200: jobAnswer,
    404: problemResponse('No such job.'),
    409: problemResponse('The job has ended (`job_state_conflict`).'),
    422: problemResponse('The body is not valid.'),
  },
})

export const moveJobRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/queue/{id}/move',
  operationId: 'movePrintJob',
  tags,
  summary: 'Move a waiting job',
  description:
    'Moves a queued or held job before another waiting job (`before`), taking its priority so it stands where it was put, or to a place among the waiting jobs (`position`, 1 is the front; past the end is the end). 409 for a job that is no longer waiting.',
  request: {
    params: IdParamSchema,
    ...jsonBody(
      z
        .object({
          before: idField().optional().openapi({ description: 'The waiting job to stand before.' }),
          position: z.number().int().min(1).max(100_000).optional().openapi({ example: 1 }),
        })
        .strict()
        .openapi('PrintJobMove', { example: { position: 1 } }),
    ),
  },
  responses: {
    200: jobAnswer,
    404: problemResponse('No such job.'),
    409: problemResponse('The job is not waiting (`job_state_conflict`).'),
    422: problemResponse('Neither or both of `before` and `position`, or `before` names no waiting job.'),
  },
})

const jobAction = (
  action: 'hold' | 'release' | 'cancel' | 'requeue' | 'printed',
  summary: string,
  description: string,
) =>
  defineRoute(allow('user', 'manage'), {
    method: 'post',
    path: `/api/v1/queue/{id}/${action}`,
    operationId: `${action}PrintJob`,
    tags,
    summary,
    description,
    request: { params: IdParamSchema },
    responses: {
      200: jobAnswer,
      404: problemResponse('No such job.'),
      409: problemResponse('Its state does not allow it (`job_state_conflict`).'),
    },
  })

export const holdJobRoute = jobAction(
  'hold',
  'Hold a queued job',
  'Keeps a queued job from being sent until it is released; it keeps its place.',
)
export const releaseJobRoute = jobAction(
  'release',
  'Release a held job',
  'Lets a held job be sent again, from its place.',
)
export const cancelJobRoute = jobAction(
  'cancel',
  'Cancel a waiting job',
  'Cancels a queued or held job. A job already on a printer is stopped on the printer; the queue records how it ended.',
)
export const markJobPrintedRoute = jobAction(
  'printed',
  'Count a waiting job’s next part as printed',
  'A person says the next part of a queued or held job printed: the next file of its set, the next copy, or the job completed. For a job held because the vault could not tell whether its part printed (it stopped while sending it and the printer showed that file’s print ended, or the print ended without the printer saying how; its `last_error` says which): look at the printer, then count it here if it printed, or release it to print again. Also for a part printed outside the queue.',
)
export const requeueJobRoute = jobAction(
  'requeue',
  'Queue a failed or cancelled job again',
  'Queues a failed or cancelled job again at its place, its failed prints forgotten and its copies done kept.',
)

/** No control characters but tab, line feed and carriage return. */
const plainText = (value: string) =>
  [...value].every((char) => {
    const code = char.charCodeAt(0)
    return code === 9 || code === 10 || code === 13 || (code >= 32 && code !== 127)
  })

const BedClearingSchema = z
  .discriminatedUnion('by', [
    z.object({ by: z.literal('person') }).strict(),
    z
      .object({
        by: z.literal('script'),
        script: z
          .string()
          .trim()
          .min(1)
          .max(4000)
          .refine(plainText, 'no control characters but newlines and tabs')
          .openapi({
            description:
              'The G-code the printer runs to clear its bed: a macro name or several lines (at most 4,000 characters).',
            example: 'EJECT_PARTS',
          }),
        below_c: z.number().min(15).max(100).openapi({
          description: 'The bed must report a temperature below this (°C, 15 to 100) before the script runs.',
          example: 35,
        }),
        timeout_s: z.number().int().min(10).max(3600).default(600).openapi({
          description:
            'Seconds (10 to 3,600) the printer has to run the script and show itself idle again; past them it is held.',
          example: 600,
        }),
      })
      .strict(),
  ])
  .openapi('BedClearing', {
    description:
      'How the bed becomes clear after a job: `person` (someone confirms it, `POST /api/v1/printers/{id}/bed-cleared`) or `script` (the vault waits for the bed to cool below `below_c`, up to an hour after the print, runs `script`, and counts the bed clear once a fresh status shows the printer idle, without an error or a job; a script that fails, a printer that errs, goes offline or does not finish within `timeout_s` holds the printer). Only printers whose provider runs G-code (`scripts.runs` in `GET /api/v1/printer-providers`) can clear by script.',
    example: { by: 'script', script: 'EJECT_PARTS', below_c: 35, timeout_s: 600 },
  })

const FarmPrinterSchema = z
  .object({
    printer_id: z.string(),
    name: z.string(),
    groups: z.array(z.string()).openapi({ example: ['petg-farm'] }),
    loaded_filaments: z.array(z.string()).openapi({
      description: 'The filament types loaded, as slicers name them (upper case): the compatibility rules read them.',
      example: ['PETG'],
    }),
    held: z
      .boolean()
      .openapi({ description: 'A queued job failed on it: the queue sends it nothing until it is released.' }),
    held_reason: z.string().nullable(),
    held_since: z.string().nullable().openapi({ format: 'date-time' }),
    bed_clearing: BedClearingSchema,
    clearing: z
      .object({
        state: z.enum(['cooling', 'running', 'ran', 'cleared', 'failed', 'superseded']).openapi({
          description:
            '`cooling`: waiting for the bed to cool below `below_c` (a bed still warm an hour after the print fails the run); `running`: the script was sent; `ran`: waiting to see the printer idle; then `cleared`, `failed` (the printer is held, `detail` says why) or `superseded` (a person confirmed the bed clear first).',
        }),
        bed_c: z.number().nullable().openapi({ description: 'The bed temperature last seen, °C.', example: 47 }),
        below_c: z.number().openapi({ example: 35 }),
        detail: z.string().nullable(),
        started_at: z.string().openapi({ format: 'date-time' }),
      })
      .nullable()
      .openapi('BedClearingRun', { description: 'The last clearing run by script on this printer, if any.' }),
  })
  .openapi('FarmPrinter')

export const listFarmPrintersRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/farm/printers',
  operationId: 'listFarmPrinters',
  tags,
  summary: 'Printers as the queue sees them',
  description: 'Each printer’s groups, loaded filament and hold. Its state and bed are at `GET /api/v1/printers`.',
  responses: { 200: json('The printers.', z.object({ items: z.array(FarmPrinterSchema) }).openapi('FarmPrinters')) },
})

const tagList = (description: string, example: string[]) =>
  z.array(z.string().trim().min(1).max(100)).max(50).openapi({ description, example })

export const setFarmPrinterRoute = defineRoute(allow('user', 'manage'), {
  method: 'patch',
  path: '/api/v1/farm/printers/{id}',
  operationId: 'setFarmPrinter',
  tags,
  summary: 'Set a printer’s groups, loaded filament and bed clearing',
  description:
    'Replaces the group tags jobs can target, the filament types loaded (for the compatibility rules: a file that uses another type is not sent to it), and how the bed becomes clear after a job (a person, or a G-code script the vault runs once the bed has cooled). A printer whose provider runs no G-code (PrusaLink, Bambu) cannot clear by script: 422, saying why.',
  request: {
    params: IdParamSchema,
    ...jsonBody(
      z
        .object({
          groups: tagList('Group tags, replacing the old ones.', ['petg-farm']).optional(),
          loaded_filaments: tagList('Filament types loaded, replacing the old ones.', ['PETG']).optional(),
          bed_clearing: BedClearingSchema.optional(),
        })
        .strict()
        .openapi('FarmPrinterChange', { example: { groups: ['petg-farm'], loaded_filaments: ['PETG'] } }),
    ),
  },
  responses: {
    200: json('The printer.', FarmPrinterSchema),
    404: problemResponse('No such printer.'),
    422: problemResponse('The body is not valid, or the printer cannot run a clearing script.'),
  },
})

export const releasePrinterRoute = defineRoute(allow('user', 'manage', 'print'), {
  method: 'post',
  path: '/api/v1/farm/printers/{id}/release',
  operationId: 'releaseFarmPrinter',
  tags,
  summary: 'Release a held printer',
  description:
    'Someone looked at a printer a job failed on: the queue feeds it again (once its bed is confirmed clear, `POST /api/v1/printers/{id}/bed-cleared`).',
  request: { params: IdParamSchema },
  responses: { 200: json('The printer.', FarmPrinterSchema), 404: problemResponse('No such printer.') },
})
