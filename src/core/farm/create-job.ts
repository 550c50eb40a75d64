import { type FieldError, unprocessable, VaultError } from '../errors.js'
import { type JobDeps, queueJob } from './job-transitions.js'
import type { PrintJobRow, PrintTarget } from './print-job.js'

export interface NewPrintJob {
  file_ids: string[]
  copies: number
  target: PrintTarget
  priority: number
  max_attempts: number
  accept_warnings: boolean
}

/** A file the queue can send: G-code (text or binary) or a sliced `.gcode.3mf` with its plates. */
function printReady(file: { format: string; metadata: string }): boolean {
  if (file.format === 'gcode') return true
  if (file.format !== '3mf') return false
  const plates = (JSON.parse(file.metadata) as { plates?: unknown }).plates
  return Array.isArray(plates) && plates.length > 0
}

/**
 * Queues a job at the end of the queue: files that all exist, belong to one model and are print-ready,
 * and a target printer that exists (a group need not have printers yet; the job waits, saying so).
 */
export async function createJob(
  deps: JobDeps,
  input: NewPrintJob,
  by: { userId: string | null; now: string },
): Promise<PrintJobRow> {
  const { db } = deps.database
  const files = await db
    .selectFrom('files')
    .select(['id', 'model_id', 'format', 'metadata', 'original_name'])
    .where('id', 'in', input.file_ids)
    .execute()
  const errors: FieldError[] = []
  input.file_ids.forEach((id, index) => {
    const file = files.find((candidate) => candidate.id === id)
    const path = `body.file_ids.${index}`
    if (!file) errors.push({ path, message: 'no stored file has this id' })
    else if (!printReady(file))
      errors.push({ path, message: `${file.original_name} is a ${file.format} file, not print-ready G-code` })
  })
  if (new Set(input.file_ids).size !== input.file_ids.length)
    errors.push({ path: 'body.file_ids', message: 'names a file twice' })
  const models = new Set(files.map((file) => file.model_id))
  if (models.size > 1) errors.push({ path: 'body.file_ids', message: 'the files of one job belong to one model' })
  if (input.target.kind === 'printer') {
    const printer = await db
      .selectFrom('printers')
      .select('id')
      .where('id', '=', input.target.printer_id)
      .executeTakeFirst()
    if (!printer) errors.push({ path: 'body.target.printer_id', message: 'no printer has this id' })
  }
  if (errors.length > 0) {
    const notReady = errors.find((error) => error.message.includes('not print-ready'))
    if (notReady && errors.length === 1)
      throw new VaultError('not_gcode', `${notReady.message}; slice it first.`, { fieldErrors: errors })
    throw unprocessable(`The job is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors)
  }

  const last = await db
    .selectFrom('print_jobs')
    .select((eb) => eb.fn.max('position').as('position'))
    .executeTakeFirst()
  return queueJob(deps, {
    model_id: files[0]?.model_id ?? '',
    file_ids: JSON.stringify(input.file_ids),
    copies: input.copies,
    target_kind: input.target.kind,
    target_printer_id: input.target.kind === 'printer' ? input.target.printer_id : null,
    target_group: input.target.kind === 'group' ? input.target.group : null,
    priority: input.priority,
    position: Number(last?.position ?? 0) + 1,
    max_attempts: input.max_attempts,
    accept_warnings: input.accept_warnings ? 1 : 0,
    created_by: by.userId,
    now: by.now,
  })
}
