import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { dispatchExample, printerNotReadyExample, sendRequestExample } from '../answer-examples.js'
import { IdParamSchema, idField } from '../common-schemas.js'
import { ProblemSchema, problemResponse } from '../problem.js'
import { PrintJobSchema } from '../queue/queue.routes.js'

const tags = ['Printers']
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
})
const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
})

const TemperatureSchema = z.object({ actual: z.number().nullable(), target: z.number().nullable() }).nullable()

export const PrinterStatusSchema = z
  .object({
    state: z.enum(['offline', 'idle', 'busy', 'printing', 'paused', 'error', 'unknown']),
    reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why, e.g. `no answer within 2500 ms` for an unreachable printer.' }),
    ready: z.boolean().openapi({
      description:
        'Idle, freshly observed and, for a printer with `require_bed_clear`, its bed confirmed clear since the last job: the only state a job is sent to.',
    }),
    asked_at: z.string().openapi({
      format: 'date-time',
      description: 'When the read that gave this status was asked: the printer was in this state at some moment since.',
    }),
    observed_at: z.string().openapi({ format: 'date-time', description: 'When that read answered.' }),
    stale: z.boolean().openapi({
      description:
        'Older than the cache lifetime (a refresh is under way), or from a printer that stopped sending its regular reports (Bambu: three of its usual gaps, at least 3 s, without one).',
    }),
    temperatures: z.object({ nozzle: TemperatureSchema, bed: TemperatureSchema }).openapi({ description: '°C' }),
    job: z
      .object({
        file_name: z.string().nullable(),
        progress: z.number().min(0).max(1).nullable().openapi({ description: '0..1 whatever the provider reports.' }),
        time_left_s: z.number().nullable(),
        elapsed_s: z.number().nullable(),
        ended: z.enum(['completed', 'cancelled', 'failed']).nullable().openapi({
          description:
            'Null while the job runs or is being set up; how it ended once it is over (the printer keeps showing its last job until the next one).',
        }),
        run_id: z.string().nullable().openapi({
          description:
            "The host's own id of this run (PrusaLink's job id; Moonraker's job history, once the job ended), which tells two runs of the same file apart; null when the host numbers none (OctoPrint, Bambu Lab over LAN).",
        }),
        filament_used_mm: z.number().nullable().optional().openapi({
          description:
            'Filament the run has fed so far (all of it, once it ended), mm; only where the host counts it (Moonraker).',
        }),
      })
      .nullable(),
    raw: z.record(z.string(), z.unknown()).openapi({ description: "The provider's own state words, for debugging." }),
  })
  .openapi('PrinterStatus')

const requireBedClearField = z.boolean().openapi({
  description:
    'After each job the printer is not `ready` until someone confirms the bed is clear (`POST /api/v1/printers/{id}/bed-cleared`). Off by default.',
})

export const PrinterSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.string().openapi({ example: 'moonraker' }),
    address: z.string().openapi({ example: 'http://voron.local:7125' }),
    has_credentials: z.boolean().openapi({ description: 'Credentials are stored encrypted and never returned.' }),
    printer_profile_id: z.string().nullable(),
    require_bed_clear: requireBedClearField,
    bed_occupied_since: z.string().nullable().openapi({
      format: 'date-time',
      description:
        'When the vault first saw the job now on the bed (printing or paused, whoever started it); null once someone confirms the bed is clear.',
    }),
    created_at: z.string(),
    updated_at: z.string(),
    status: PrinterStatusSchema,
  })
  .openapi('Printer')

const providerField = z.string().min(1).max(50).openapi({
  description: 'Which protocol the printer speaks: the `name` of one of `GET /api/v1/printer-providers`.',
  example: 'moonraker',
})
const CredentialsSchema = z.record(z.string(), z.string().max(2000)).openapi('PrinterCredentials', {
  description:
    "The provider's credential fields, as its `credentials` JSON Schema in `GET /api/v1/printer-providers` lists them (unknown fields are refused with 422). Stored encrypted and never sent back.",
  example: { api_key: 'b3c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4' },
})

const nameField = z.string().trim().min(1).max(100)
const addressField = z.string().trim().min(1).max(2000).openapi({
  description:
    "Where the printer is, as its provider's `address` in `GET /api/v1/printer-providers` describes it: the base URL of its API for the HTTP hosts (no credentials in it), an IP address or host name for `bambu`.",
  example: 'http://voron.local:7125',
})

export const PrinterProviderSchema = z
  .object({
    name: z.string().openapi({ example: 'moonraker' }),
    label: z.string().openapi({ example: 'Moonraker (Klipper)' }),
    address: z.object({
      description: z.string().openapi({ example: "Moonraker's API base URL" }),
      example: z.string().openapi({ example: 'http://voron.local:7125' }),
    }),
    credentials: z.record(z.string(), z.unknown()).openapi({
      description:
        'JSON Schema (draft 2020-12) of the `credentials` object this provider takes: each field with a `title` and `description`, `format: "password"` for secrets, `required` for what it cannot work without.',
      example: {
        type: 'object',
        properties: { api_key: { type: 'string', title: 'API key', format: 'password' } },
        additionalProperties: false,
      },
    }),
    controls: z.array(z.enum(['pause', 'resume', 'cancel'])).openapi({
      description:
        'The controls of a running print its printers take (`POST /api/v1/printers/{id}/pause`, `/resume`, `/cancel`); the web UI offers only these.',
      example: ['pause', 'resume', 'cancel'],
    }),
    scripts: z
      .object({
        runs: z.boolean(),
        detail: z.string().openapi({
          example:
            'POST /printer/gcode/script, which answers once Klipper has run the script; an unknown macro is refused.',
        }),
      })
      .openapi({
        description:
          'Whether the vault can run G-code on this provider’s printers (a bed-clearing script, `PATCH /api/v1/farm/printers/{id}`), and through which host API, or why not.',
      }),
  })
  .openapi('PrinterProvider')

export const listPrinterProvidersRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/printer-providers',
  operationId: 'listPrinterProviders',
  tags,
  summary: 'The kinds of printer this vault can drive',
  description:
    "Every provider this vault's runtime offers, with what its printers' `address` and `credentials` take: the web UI builds its printer form from it, and so can any client.",
  responses: {
    200: json(
      'Every provider, in the order the vault offers them.',
      z.object({ items: z.array(PrinterProviderSchema) }),
    ),
  },
})

export const listPrintersRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/printers',
  operationId: 'listPrinters',
  tags,
  summary: 'Printers with live status',
  description:
    'Statuses are polled concurrently with a timeout and cached briefly, so the list answers quickly even when printers are unreachable; an unreachable printer is `offline` with the reason.',
  responses: { 200: json('Every printer, by name.', z.object({ items: z.array(PrinterSchema) })) },
})

export const getPrinterRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/printers/{id}',
  operationId: 'getPrinter',
  tags,
  summary: 'One printer with live status',
  request: { params: IdParamSchema },
  responses: { 200: json('The printer.', PrinterSchema), 404: problemResponse('No such printer.') },
})

// Printer setup takes `full`, not `manage` (the library) or `print`: a printer holds the address and
// credentials jobs are sent to, so a key that could change it could send G-code anywhere.
export const createPrinterRoute = defineRoute(allow('admin', 'full'), {
  method: 'post',
  path: '/api/v1/printers',
  operationId: 'createPrinter',
  tags,
  summary: 'Register a printer',
  request: jsonBody(
    z
      .object({
        name: nameField,
        provider: providerField,
        address: addressField,
        credentials: CredentialsSchema.optional(),
        printer_profile_id: z.string().nullable().optional(),
        require_bed_clear: requireBedClearField.optional(),
      })
      .strict()
      .openapi('CreatePrinterRequest'),
  ),
  responses: {
    201: json('Registered; the status is its first poll.', PrinterSchema),
    409: problemResponse('The name is taken (`name_taken`).'),
    422: problemResponse('Bad provider, address, credentials or profile.'),
  },
})

export const updatePrinterRoute = defineRoute(allow('admin', 'full'), {
  method: 'patch',
  path: '/api/v1/printers/{id}',
  operationId: 'updatePrinter',
  tags,
  summary: 'Change a printer',
  description: '`credentials` replaces the stored credentials; `null` removes them.',
  request: {
    params: IdParamSchema,
    ...jsonBody(
      z
        .object({
          name: nameField.optional(),
          provider: providerField.optional(),
          address: addressField.optional(),
          // A union, not .nullable(): zod-to-openapi renders a nullable $ref as an allOf that null cannot pass.
          credentials: z.union([CredentialsSchema, z.null()]).optional(),
          printer_profile_id: z.string().nullable().optional(),
          require_bed_clear: requireBedClearField.optional(),
        })
        .strict()
        .openapi('UpdatePrinterRequest'),
    ),
  },
  responses: {
    200: json('Changed.', PrinterSchema),
    404: problemResponse('No such printer.'),
    409: problemResponse('The name is taken (`name_taken`).'),
    422: problemResponse('Bad provider, address, credentials or profile.'),
  },
})

export const deletePrinterRoute = defineRoute(allow('admin', 'full'), {
  method: 'delete',
  path: '/api/v1/printers/{id}',
  operationId: 'deletePrinter',
  tags,
  summary: 'Remove a printer',
  description: 'Its dispatch records stay, naming the printer.',
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Removed.' }, 404: problemResponse('No such printer.') },
})

export const confirmBedClearRoute = defineRoute(allow('user', 'print'), {
  method: 'post',
  path: '/api/v1/printers/{id}/bed-cleared',
  operationId: 'confirmBedClear',
  tags,
  summary: 'Confirm the bed is clear',
  description:
    'Says that someone took the last print off the bed, so a printer with `require_bed_clear` is `ready` for the next job. The vault cannot see the bed: it counts a job from the moment it sees the printer printing or paused. Refused with 409 `job_on_bed` while a fresh status says a job is printing or paused, and when the vault saw a job begin on it after that status was read (a second press or a retried request never clears the bed of the job the queue sent meanwhile). Confirming a bed already clear changes nothing.',
  request: { params: IdParamSchema },
  responses: {
    200: json('The printer, its `bed_occupied_since` cleared.', PrinterSchema),
    404: problemResponse('No such printer.'),
    409: problemResponse('A job is printing or paused on it, or began since its status was read (`job_on_bed`).'),
  },
})

const CheckSchema = z.object({ name: z.string(), result: z.enum(['pass', 'warn', 'fail']), detail: z.string() })

export const DiagnosticsSchema = z
  .object({
    printer_id: z.string(),
    provider: z.string(),
    reachable: z.boolean(),
    authenticated: z.boolean().nullable(),
    firmware_link: z
      .boolean()
      .nullable()
      .openapi({ description: 'Whether the host talks to the firmware (Klippy ready, serial connected…).' }),
    latency_ms: z.number().nullable(),
    identity: z.object({
      software: z.string().nullable(),
      version: z.string().nullable(),
      api_version: z.string().nullable(),
      hostname: z.string().nullable(),
    }),
    capabilities: z.object({
      upload: z.boolean(),
      start: z.boolean(),
      accepted_extensions: z.array(z.string()),
      storages: z.array(z.string()),
      live_push: z.string(),
      controls: z.array(z.enum(['pause', 'resume', 'cancel'])).openapi({
        description: 'The controls of a running print this printer takes (`POST /api/v1/printers/{id}/pause`…).',
      }),
    }),
    checks: z.array(CheckSchema),
    checked_at: z.string(),
  })
  .openapi('PrinterDiagnostics')

export const diagnosticsRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/printers/{id}/diagnostics',
  operationId: 'getPrinterDiagnostics',
  tags,
  summary: 'Why a printer is or is not ready',
  description:
    'Reachability, authentication, firmware link, latency, identity, capabilities and named checks. Always asks the printer (no cache).',
  request: { params: IdParamSchema },
  responses: { 200: json('The diagnosis.', DiagnosticsSchema), 404: problemResponse('No such printer.') },
})

export const DispatchSchema = z
  .object({
    id: z.string(),
    printer_id: z.string().nullable(),
    printer_name: z.string(),
    file_id: z.string().nullable(),
    file_name: z.string(),
    user_id: z.string().nullable(),
    start_requested: z.boolean(),
    outcome: z
      .enum([
        'refused',
        'upload_failed',
        'uploaded',
        'not_ready_after_upload',
        'start_refused',
        'not_confirmed',
        'preparing',
        'confirmed',
      ])
      .openapi({
        description:
          '`preparing`: started, and the printer still sets the job up (a Bambu Lab printer unzips and checks it); status reads of the printer then settle it as `confirmed` once it prints, or `not_confirmed` if it stops or fails first. `confirmed`: the printer was seen printing the file, or done with a run of it that began after the start (a short job can end before the first look).',
      }),
    uploaded: z.boolean(),
    started: z.boolean().openapi({
      description:
        'The printer accepted the start command, or was seen printing the file after a start command that got no answer in time.',
    }),
    confirmed: z.boolean().openapi({
      description: 'We then saw the printer printing this file, or done with a run of it that began after the start.',
    }),
    remote_name: z.string().nullable(),
    detail: z.string(),
    steps: z.array(z.object({ step: z.string(), ok: z.boolean(), detail: z.string(), at: z.string() })),
    created_at: z.string(),
    finished_at: z
      .string()
      .openapi({ description: 'When the outcome was recorded; for a settled `preparing` send, when it was settled.' }),
    model_id: z
      .string()
      .nullable()
      .openapi({ description: 'The model holding the file now; null once the file is deleted.' }),
  })
  .openapi('Dispatch')

export const sendRoute = defineRoute(allow('user', 'print'), {
  method: 'post',
  path: '/api/v1/printers/{id}/send',
  operationId: 'sendToPrinter',
  tags,
  summary:
    'Send a stored G-code file (or, to a Bambu Lab printer, a sliced .gcode.3mf) to a printer, and optionally start it',
  description:
    'Never queues work onto an unconfirmed printer: a fresh status must say `idle` (else 409 `printer_not_ready`, nothing sent); the file is uploaded without auto-start, its extension in lower case (`.GCODE` → `.gcode`: Klipper opens no other); with `start`, the status is checked again, the print is started, and the printer must then be seen printing the file. A start command that gets no answer within `VAULT_PRINTER_TIMEOUT_MS` is no refusal (Klipper answers once the G-code before it has run): the confirm step decides. The answer is the dispatch record: `uploaded`, `started` and `confirmed` say exactly what happened. A stored `.gcode.3mf` with sliced plates goes, as it is, only to a provider that prints one (`bambu`), which starts its first sliced plate; plain G-code goes to a `bambu` printer wrapped as a `.gcode.3mf`. A binary G-code (`.bgcode`) goes, under its `.bgcode` name, only to a provider whose `accepted_extensions` list it (`prusalink`).',
  request: {
    params: IdParamSchema,
    ...jsonBody(
      z
        .object({ file_id: z.string().min(1).max(100), start: z.boolean().default(false) })
        .strict()
        .openapi('SendToPrinterRequest', { example: sendRequestExample }),
    ),
  },
  responses: {
    201: {
      description: 'Done as asked: `uploaded` (start false) or `confirmed`.',
      content: { 'application/json': { schema: DispatchSchema, example: dispatchExample } },
    },
    202: json(
      'Started, and the printer still prepares the job after `VAULT_PRINTER_CONFIRM_MS`: outcome `preparing`, which later status reads settle (poll `GET /api/v1/printers/{id}/dispatches`).',
      DispatchSchema,
    ),
    404: problemResponse('No such printer.'),
    409: {
      description:
        'Problem `printer_not_ready` (nothing sent; `errors` carry `printer.state` and `printer.reason`), problem `send_in_progress` (another send to this printer is under way, from any process of the install; nothing sent), or a dispatch with outcome `not_ready_after_upload` (stored, not started).',
      content: {
        'application/problem+json': { schema: ProblemSchema, example: printerNotReadyExample },
        'application/json': { schema: DispatchSchema },
      },
    },
    422: problemResponse(
      'No stored file has this id, or it is not G-code (`not_gcode`; a sliced `.gcode.3mf` to a printer that is not `bambu`, or a `.bgcode` to one that does not take binary G-code, too).',
    ),
    502: json('The printer let us down: outcome `upload_failed`, `start_refused` or `not_confirmed`.', DispatchSchema),
  },
})

const LimitQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(100).optional() })

export const printerDispatchesRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/printers/{id}/dispatches',
  operationId: 'listPrinterDispatches',
  tags,
  summary: "A printer's dispatches, newest first",
  request: { params: IdParamSchema, query: LimitQuery },
  responses: {
    200: json('Dispatches.', z.object({ items: z.array(DispatchSchema) })),
    404: problemResponse('No such printer.'),
  },
})

export const dispatchesRoute = defineRoute(allow('user', 'read', 'print'), {
  method: 'get',
  path: '/api/v1/dispatches',
  operationId: 'listDispatches',
  tags,
  summary: 'Every dispatch to any printer, or the print history of one model, newest first',
  description:
    "With `model_id`, the sends of the files that model holds now (a file moved between models takes its history along): the model page's print history. Each dispatch names the model of its file (`model_id`), so a printer's history links back to its models.",
  request: {
    query: LimitQuery.extend({
      model_id: idField().optional().openapi({ description: 'Only the sends of this model’s files.' }),
    }),
  },
  responses: {
    200: json('Dispatches.', z.object({ items: z.array(DispatchSchema) })),
    404: problemResponse('No model has this `model_id`.'),
    422: problemResponse('A bad `model_id` or `limit`.'),
  },
})

const ControlRequestSchema = z
  .object({
    file_name: z.string().min(1).max(1000).openapi({
      description: "The file of the print the caller means, as the printer's `status.job.file_name` showed it.",
      example: 'benchy.gcode',
    }),
    run_id: z.string().min(1).max(200).nullable().optional().openapi({
      description:
        'The run id the caller saw in `status.job.run_id`, where the host numbers runs (PrusaLink): then a later run of the same file is told apart too.',
    }),
  })
  .strict()
  .openapi('PrintControlRequest')

export const PrintControlSchema = z
  .object({
    control: z.enum(['pause', 'resume', 'cancel']),
    outcome: z.enum(['confirmed', 'unconfirmed']).openapi({
      description:
        '`confirmed`: a fresh status shows what the control leads to (paused; printing again; the run over). `unconfirmed`: the printer took the command (or did not answer it in time) but was not yet seen there within `VAULT_PRINTER_CONFIRM_MS`.',
    }),
    detail: z.string(),
    status: PrinterStatusSchema,
    // A union, not .nullable(): that would make the shared PrintJob component itself nullable.
    job: z.union([PrintJobSchema, z.null()]).openapi({
      description:
        'The queue job printing there, as the control left it (`paused_at` set or cleared; `cancelled` after a cancel); null for a print the queue did not send.',
    }),
  })
  .openapi('PrintControl')

const controlText = {
  pause: {
    summary: 'Pause the running print',
    description:
      'Pauses the print the printer runs, when its provider offers it (`controls` of `GET /api/v1/printer-providers`). The request names the print the caller saw (`file_name`, and `run_id` where the host numbers runs), so a pause never reaches a print that started since. A fresh status must show that print printing; the printer is asked, then looked at until it shows itself paused. The queue job printing there is marked paused (`paused_at`, event `job.paused`).',
  },
  resume: {
    summary: 'Resume a paused print',
    description:
      'Resumes the paused print the caller names (`file_name`, `run_id`), when the provider offers it. A fresh status must show that print paused; the printer is asked, then looked at until it prints again. The queue job printing there is no longer marked paused (event `job.resumed`).',
  },
  cancel: {
    summary: 'Cancel the running print',
    description:
      'Stops, for good, the printing or paused print the caller names (`file_name`, `run_id`), when the provider offers it; ask the person first. Once the printer took the command the queue job printing there ends `cancelled` (event `job.cancelled`), with the copies it had left: a person chose to stop it, so it is neither retried nor is the printer held; `POST /api/v1/queue/{id}/requeue` queues it again for the copies left. The bed then needs clearing, as after any print.',
  },
} as const

const controlRoute = (control: 'pause' | 'resume' | 'cancel') =>
  defineRoute(allow('user', 'print'), {
    method: 'post',
    path: `/api/v1/printers/{id}/${control}`,
    operationId: `${control}Print`,
    tags,
    ...controlText[control],
    request: { params: IdParamSchema, ...jsonBody(ControlRequestSchema) },
    responses: {
      200: json('Done: outcome `confirmed`.', PrintControlSchema),
      202: json(
        'Asked, not yet seen done: outcome `unconfirmed`; the printer card shows what follows.',
        PrintControlSchema,
      ),
      404: problemResponse('No such printer.'),
      409: problemResponse(
        'The printer shows another print or none (`print_moved_on`; nothing asked), its state does not allow the control (`control_not_allowed`, `errors` carry `printer.state`), or its provider offers no such control (`control_unsupported`).',
      ),
      502: problemResponse(
        'The printer refused the command or could not be reached (`control_refused`, with its reason).',
      ),
    },
  })

export const pauseRoute = controlRoute('pause')
export const resumeRoute = controlRoute('resume')
export const cancelRoute = controlRoute('cancel')
