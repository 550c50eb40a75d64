import type { Selectable } from 'kysely'
import type { KeyRing } from '../accounts/key-ring.js'
import type { PrintersTable } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import { publishEvent } from '../events/publish-event.js'
import type { HealthCheckable } from '../health/component.js'
import { jobOnBed, noteJobSeen, withBedClearance } from './bed-clearance.js'
import { settleRuns } from './print-runs.js'
import { publishStateChange } from './printer-events.js'
import type { PrintersDeps } from './printers-deps.js'
import { offlineStatus, type PrinterCredentials, type PrinterProvider, type PrinterStatus } from './provider.js'
import { findProviderKind, type PrinterProviderKind } from './provider-kind.js'
import { settlePreparing } from './settle-preparing.js'
import type { ObservedStatus } from './status-cache.js'

export type PrinterRow = Selectable<PrintersTable>

export interface PrinterInput {
  name?: string
  provider?: string
  address?: string
  credentials?: PrinterCredentials | null
  printer_profile_id?: string | null
  require_bed_clear?: boolean
}

export async function getPrinterRow(deps: Pick<PrintersDeps, 'database'>, id: string): Promise<PrinterRow> {
  const row = await deps.database.db.selectFrom('printers').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw new VaultError('not_found', `No printer has the id ${id}.`)
  return row
}

export const listPrinterRows = (deps: Pick<PrintersDeps, 'database'>) =>
  deps.database.db.selectFrom('printers').selectAll().orderBy('name').orderBy('id').execute()

async function validate(
  deps: Pick<PrintersDeps, 'database' | 'printers'>,
  input: PrinterInput,
  current?: PrinterRow,
): Promise<void> {
  const provider = input.provider ?? current?.provider ?? ''
  const kind = findProviderKind(deps.printers.providers, provider)
  const errors = []
  if (!kind) {
    const names = deps.printers.providers.map((candidate) => candidate.name)
    errors.push({ path: 'body.provider', message: `must be one of ${names.join(', ')}` })
  } else {
    const addressProblem = kind.address.check(input.address ?? current?.address ?? '')
    if (addressProblem) errors.push({ path: 'body.address', message: addressProblem })
    errors.push(...credentialProblems(kind, input, current))
  }
  // Null unlinks; any string, the empty one included, must name a profile.
  if (input.printer_profile_id !== undefined && input.printer_profile_id !== null) {
    const profile = await deps.database.db
      .selectFrom('printer_profiles')
      .select('id')
      .where('id', '=', input.printer_profile_id)
      .executeTakeFirst()
    if (!profile) errors.push({ path: 'body.printer_profile_id', message: 'no printer profile has this id' })
  }
  if (errors.length > 0)
    throw unprocessable(`The printer is not valid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors)
}

/**
 * Credentials given replace the stored ones whole, so they are checked whole against the
 * provider's schema. None given keeps the stored ones, unless the printer is new or changes
 * provider: then none at all must do for it (a Bambu printer cannot be reached without its serial
 * number and access code).
 */
function credentialProblems(kind: PrinterProviderKind, input: PrinterInput, current?: PrinterRow) {
  const becomesKind = current === undefined || current.provider !== kind.name
  if (input.credentials === undefined && !becomesKind) return []
  const checked = kind.credentials.safeParse(input.credentials ?? {})
  if (checked.success) return []
  return checked.error.issues.map((issue) => ({
    path: ['body.credentials', ...issue.path].join('.'),
    message: issue.message,
  }))
}

const nameTaken = (name: string) =>
  new VaultError('name_taken', `A printer named ${JSON.stringify(name)} exists already.`)

async function sealOrNull(keys: KeyRing, credentials: PrinterCredentials | null | undefined): Promise<string | null> {
  const present = Object.fromEntries(
    Object.entries(credentials ?? {}).filter(([, value]) => typeof value === 'string' && value !== ''),
  )
  return Object.keys(present).length > 0 ? keys.current().credentials.seal(present) : null
}

export async function createPrinter(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'keys' | 'printers' | 'events'>,
  input: Required<Pick<PrinterInput, 'name' | 'provider' | 'address'>> & PrinterInput,
): Promise<PrinterRow> {
  await validate(deps, input)
  const { db } = deps.database
  if (await db.selectFrom('printers').select('id').where('name', '=', input.name).executeTakeFirst())
    throw nameTaken(input.name)
  const now = deps.clock.now().toISOString()
  const row: PrinterRow = {
    id: crypto.randomUUID(),
    name: input.name,
    provider: input.provider,
    address: input.address,
    credentials: await sealOrNull(deps.keys, input.credentials),
    printer_profile_id: input.printer_profile_id ?? null,
    require_bed_clear: input.require_bed_clear ? 1 : 0,
    bed_occupied_since: null,
    bed_cleared_at: null,
    observed_state: null,
    farm_groups: '[]',
    loaded_filaments: '[]',
    held_reason: null,
    held_since: null,
    lease_owner: null,
    lease_until: null,
    bed_clear_by: 'person',
    bed_clear_script: null,
    bed_clear_below_c: null,
    bed_clear_timeout_s: null,
    created_at: now,
    updated_at: now,
  }
  try {
    await db.insertInto('printers').values(row).execute()
  } catch (error) {
    if (await db.selectFrom('printers').select('id').where('name', '=', input.name).executeTakeFirst())
      throw nameTaken(input.name)
    throw error
  }
  deps.logger.info('printer registered', { printer_id: row.id, provider: row.provider })
  return row
}

export async function updatePrinter(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'keys' | 'printers'>,
  id: string,
  input: PrinterInput,
): Promise<PrinterRow> {
  const current = await getPrinterRow(deps, id)
  await validate(deps, input, current)
  const { db } = deps.database
  if (input.name !== undefined && input.name !== current.name) {
    if (await db.selectFrom('printers').select('id').where('name', '=', input.name).executeTakeFirst())
      throw nameTaken(input.name)
  }
  const changes: Partial<PrinterRow> = { updated_at: deps.clock.now().toISOString() }
  if (input.name !== undefined) changes.name = input.name
  if (input.provider !== undefined) changes.provider = input.provider
  if (input.address !== undefined) changes.address = input.address
  if (input.credentials !== undefined) changes.credentials = await sealOrNull(deps.keys, input.credentials)
  if (input.printer_profile_id !== undefined) changes.printer_profile_id = input.printer_profile_id
  if (input.require_bed_clear !== undefined) changes.require_bed_clear = input.require_bed_clear ? 1 : 0
  await db.updateTable('printers').set(changes).where('id', '=', id).execute()
  deps.printers.statusCache.forget(id)
  return getPrinterRow(deps, id)
}

export async function deletePrinter(deps: Pick<PrintersDeps, 'database' | 'printers'>, id: string): Promise<void> {
  await getPrinterRow(deps, id)
  await deps.database.db.deleteFrom('printers').where('id', '=', id).execute()
  deps.printers.statusCache.forget(id)
}

/** The provider for one printer, with its credentials decrypted in memory. */
export async function connectPrinter(
  deps: Pick<PrintersDeps, 'keys' | 'printers'>,
  row: PrinterRow,
): Promise<PrinterProvider> {
  const kind = findProviderKind(deps.printers.providers, row.provider)
  if (!kind) throw new Error(`no provider ${row.provider}`)
  const credentials = row.credentials ? await deps.keys.current().credentials.open(row.credentials) : {}
  return kind.connect({ id: row.id, address: row.address, credentials, timeoutMs: deps.printers.timeoutMs })
}

/** Polls once, within the request timeout (plus a little) whatever the provider does. */
async function poll(deps: Pick<PrintersDeps, 'keys' | 'printers'>, row: PrinterRow): Promise<PrinterStatus> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const limit = deps.printers.timeoutMs + 250
  const timeout = new Promise<PrinterStatus>((resolve) => {
    timer = setTimeout(() => resolve(offlineStatus(`no answer within ${limit} ms`)), limit)
  })
  try {
    return await Promise.race([
      connectPrinter(deps, row)
        .then((provider) => provider.status())
        .catch((error: unknown) =>
          offlineStatus(
            error instanceof Error && error.name === 'CredentialKeyError'
              ? error.message
              : 'the status could not be read',
          ),
        ),
      timeout,
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The printer's status from this app's cache (see `PrinterStatusCache.read`); `fresh` always polls.
 * A job seen on the printer is recorded for bed clearance, which can hold back `ready`, and settles
 * the sends it was preparing; the row comes back as it now is.
 */
export async function observePrinter(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'keys' | 'printers' | 'events'>,
  row: PrinterRow,
  options: { fresh?: boolean } = {},
): Promise<{ row: PrinterRow; status: ObservedStatus }> {
  const status = await deps.printers.statusCache.read(row.id, () => poll(deps, row), options)
  await settlePreparing(deps, row.id, status)
  await settleRuns(deps, row.id, status)
  const noted = await noteJobSeen(deps, row, status)
  const observed = withBedClearance(noted, status)
  await publishStateChange(deps, noted, observed)
  return { row: noted, status: observed }
}

export const printerStatus = async (...args: Parameters<typeof observePrinter>): Promise<ObservedStatus> =>
  (await observePrinter(...args)).status

/**
 * Someone confirms the printer's bed is clear, which makes it ready again (see `bed-clearance.ts`).
 * Refused while a job is on the bed, as a fresh status shows it, or once the vault has seen one
 * begin since that status was read.
 */
export async function confirmBedClear(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'keys' | 'printers' | 'events'>,
  id: string,
  userId: string | null,
): Promise<PrinterRow> {
  const { row, status } = await observePrinter(deps, await getPrinterRow(deps, id), { fresh: true })
  if (jobOnBed(status.state))
    throw new VaultError(
      'job_on_bed',
      `${row.name} is ${status.state}; confirm the bed is clear once the job has ended and its print is taken off.`,
    )
  const now = deps.clock.now().toISOString()
  const seen = row.bed_occupied_since
  const outcome = await deps.database.db.transaction().execute(async (trx) => {
    // Clears only the job the status above showed ended: one the queue sent since, which the vault
    // saw printing, is on the bed now (a second press, a retried request, another person's). A
    // status asked before that one tells of the print taken off, never of a new one (`noteJobSeen`).
    const updated = await trx
      .updateTable('printers')
      .set({ bed_occupied_since: null, bed_cleared_at: status.asked_at })
      .where('id', '=', id)
      .where('bed_occupied_since', seen === null ? 'is' : '=', seen)
      .executeTakeFirst()
    if (Number(updated.numUpdatedRows) === 0) {
      const current = await trx
        .selectFrom('printers')
        .select('bed_occupied_since')
        .where('id', '=', id)
        .executeTakeFirst()
      // Cleared meanwhile (by another person, by its clearing script): what was asked is so.
      return current?.bed_occupied_since === null ? 'already clear' : 'job began'
    }
    // The clearing run by script of this bed is over: one whose script still runs on the printer
    // finishes there, but its outcome no longer counts, and the next print gets a run of its own.
    await trx
      .updateTable('bed_clearings')
      .set({ state: 'superseded', lease_owner: null, lease_until: null, ended_at: now, updated_at: now })
      .where('printer_id', '=', id)
      .where('state', 'in', ['cooling', 'running', 'ran'])
      .execute()
    return seen === null ? 'already clear' : 'cleared'
  })
  if (outcome === 'job began')
    throw new VaultError(
      'job_on_bed',
      `${row.name} began a job just now; confirm the bed is clear once it has ended and its print is taken off.`,
    )
  deps.logger.info('printer bed confirmed clear', { printer_id: id, user_id: userId })
  if (outcome === 'cleared')
    await publishEvent(deps, {
      type: 'printer.bed_cleared',
      subject: `printer:${id}`,
      data: { printer_id: id, printer_name: row.name, by: 'person', user_id: userId },
    })
  return { ...row, bed_occupied_since: null, bed_cleared_at: status.asked_at }
}

/**
 * Health of the printer fleet: how many are online, naming those that are not with the reason.
 * "Offline", not "unreachable": a host can answer while its printer is not connected to it.
 */
export function printerFleetHealth(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'keys' | 'printers' | 'events'>,
): HealthCheckable {
  return {
    async checkHealth() {
      const rows = await listPrinterRows(deps)
      if (rows.length === 0)
        return { status: 'pass', reason: 'no printers registered', details: { printers: 0, online: 0 } }
      const statuses = await Promise.all(rows.map(async (row) => ({ row, status: await printerStatus(deps, row) })))
      const failing = statuses.filter(({ status }) => status.state === 'offline')
      const details = { printers: rows.length, online: rows.length - failing.length }
      if (failing.length === 0) return { status: 'pass', details }
      const named = failing.map(({ row, status }) => `${row.name} (${status.reason ?? 'offline'})`).join(', ')
      return {
        status: failing.length === rows.length ? 'fail' : 'warn',
        reason: `${details.online} of ${rows.length} printers online; offline: ${named}`,
        details,
      }
    },
  }
}
