import type { Selectable } from 'kysely'
import type { Deps } from '../deps.js'
import type { PrintersTable } from '../db/schema.js'
import { conflict, notFound, unprocessable } from '../errors.js'
import type { HealthCheckable } from '../health/component.js'
import type { CredentialCipher } from './credentials.js'
import {
  isReady,
  offlineStatus,
  type PrinterCredentials,
  type PrinterProvider,
  type PrinterProviders,
  type PrinterStatus,
} from './provider.js'

/** What `Deps.printers` carries: the providers and how to talk to printers. */
export interface PrinterDeps {
  providers: PrinterProviders
  credentials: CredentialCipher
  /** Per-request timeout towards a printer. */
  timeoutMs: number
  /** How long a polled status is served from cache. */
  statusTtlMs: number
  /** How long `send` waits for a started printer to show that it prints. */
  confirmMs: number
}

export type PrinterRow = Selectable<PrintersTable>

export interface PrinterInput {
  name?: string
  provider?: string
  address?: string
  credentials?: PrinterCredentials | null
  printer_profile_id?: string | null
}

export interface ObservedStatus extends PrinterStatus {
  ready: boolean
  observed_at: string
  /** True when the status is older than the cache lifetime (a fresh poll is under way). */
  stale: boolean
}

export async function getPrinterRow(deps: Deps, id: string): Promise<PrinterRow> {
  const row = await deps.database.db.selectFrom('printers').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`No printer has the id ${id}.`)
  return row
}

export const listPrinterRows = (deps: Deps) =>
  deps.database.db.selectFrom('printers').selectAll().orderBy('name').orderBy('id').execute()

function checkAddress(provider: string, address: string): string | null {
  if (provider === 'virtual')
    return /^virtual:/.test(address)
      ? null
      : 'a virtual printer\'s address starts with "virtual:" (e.g. virtual://bench?print_seconds=60)'
  if (!URL.canParse(address)) return 'must be an http:// or https:// URL'
  const url = new URL(address)
  if (!/^https?:$/.test(url.protocol)) return 'must be an http:// or https:// URL'
  if (url.username || url.password) return 'must not carry credentials; put them in `credentials`'
  return null
}

async function validate(deps: Deps, input: PrinterInput, current?: PrinterRow): Promise<void> {
  const provider = input.provider ?? current?.provider ?? ''
  const errors = []
  if (!Object.hasOwn(deps.printers.providers, provider)) {
    errors.push({ path: 'body.provider', message: `must be one of ${Object.keys(deps.printers.providers).join(', ')}` })
  }
  const address = input.address ?? current?.address ?? ''
  const addressProblem = checkAddress(provider, address)
  if (addressProblem) errors.push({ path: 'body.address', message: addressProblem })
  if (input.printer_profile_id) {
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

const nameTaken = (name: string) => conflict('name_taken', `A printer named ${JSON.stringify(name)} exists already.`)

async function sealOrNull(deps: Deps, credentials: PrinterCredentials | null | undefined): Promise<string | null> {
  const present = Object.fromEntries(
    Object.entries(credentials ?? {}).filter(([, value]) => typeof value === 'string' && value !== ''),
  )
  return Object.keys(present).length > 0 ? deps.printers.credentials.seal(present) : null
}

export async function createPrinter(
  deps: Deps,
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
    credentials: await sealOrNull(deps, input.credentials),
    printer_profile_id: input.printer_profile_id ?? null,
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

export async function updatePrinter(deps: Deps, id: string, input: PrinterInput): Promise<PrinterRow> {
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
  if (input.credentials !== undefined) changes.credentials = await sealOrNull(deps, input.credentials)
  if (input.printer_profile_id !== undefined) changes.printer_profile_id = input.printer_profile_id
  await db.updateTable('printers').set(changes).where('id', '=', id).execute()
  statusCache(deps).delete(id)
  return getPrinterRow(deps, id)
}

export async function deletePrinter(deps: Deps, id: string): Promise<void> {
  await getPrinterRow(deps, id)
  await deps.database.db.deleteFrom('printers').where('id', '=', id).execute()
  statusCache(deps).delete(id)
}

/** The provider for one printer, with its credentials decrypted in memory. */
export async function connectPrinter(deps: Deps, row: PrinterRow): Promise<PrinterProvider> {
  const factory = deps.printers.providers[row.provider]
  if (!factory) throw new Error(`no provider ${row.provider}`)
  const credentials = row.credentials ? await deps.printers.credentials.open(row.credentials) : {}
  return factory({ id: row.id, address: row.address, credentials, timeoutMs: deps.printers.timeoutMs })
}

interface CacheEntry {
  status: PrinterStatus
  observedAt: number
  polling?: Promise<CacheEntry>
}

const caches = new WeakMap<PrinterDeps, Map<string, CacheEntry>>()

function statusCache(deps: Deps): Map<string, CacheEntry> {
  let cache = caches.get(deps.printers)
  if (!cache) caches.set(deps.printers, (cache = new Map()))
  return cache
}

/** Polls once, within the request timeout (plus a little) whatever the provider does. */
async function poll(deps: Deps, row: PrinterRow): Promise<CacheEntry> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const limit = deps.printers.timeoutMs + 250
  const timeout = new Promise<PrinterStatus>((resolve) => {
    timer = setTimeout(() => resolve(offlineStatus(`no answer within ${limit} ms`)), limit)
  })
  try {
    const status = await Promise.race([
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
    return { status, observedAt: deps.clock.now().getTime() }
  } finally {
    clearTimeout(timer)
  }
}

/** How long a list waits for a refresh before showing the last status, marked stale. */
const staleWaitMs = 300

/**
 * The printer's status. `fresh` always polls. Otherwise a status younger than the cache
 * lifetime is served as it is; for an older one a poll starts, and when it does not answer
 * within `staleWaitMs` the last status is served marked stale while the poll goes on, so a
 * list never waits long for an unreachable printer.
 */
export async function printerStatus(
  deps: Deps,
  row: PrinterRow,
  options: { fresh?: boolean } = {},
): Promise<ObservedStatus> {
  const cache = statusCache(deps)
  const now = deps.clock.now().getTime()
  const cached = cache.get(row.id)
  const refresh = () => {
    if (cached?.polling) return cached.polling
    const polling = poll(deps, row).then((entry) => {
      if (cache.get(row.id) === pending) cache.set(row.id, entry)
      return entry
    })
    const pending: CacheEntry = cached
      ? { ...cached, polling }
      : { status: offlineStatus('not polled yet'), observedAt: 0, polling }
    cache.set(row.id, pending)
    return polling
  }
  if (options.fresh) {
    const entry = await poll(deps, row)
    cache.set(row.id, entry)
    return present(entry, false)
  }
  if (cached && cached.observedAt > 0) {
    if (now - cached.observedAt <= deps.printers.statusTtlMs) return present(cached, false)
    // Wait briefly for the refresh; a printer slower than that is shown as last seen, stale.
    let timer: ReturnType<typeof setTimeout> | undefined
    const fresh = await Promise.race([
      refresh(),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), staleWaitMs))),
    ])
    clearTimeout(timer)
    return fresh ? present(fresh, false) : present(cached, true)
  }
  return present(await refresh(), false)
}

function present(entry: CacheEntry, stale: boolean): ObservedStatus {
  return {
    ...entry.status,
    ready: isReady(entry.status) && !stale,
    observed_at: new Date(entry.observedAt).toISOString(),
    stale,
  }
}

/** Health of the printer fleet: how many are reachable, naming those that are not. */
export function printerFleetHealth(deps: Deps): HealthCheckable {
  return {
    async checkHealth() {
      const rows = await listPrinterRows(deps)
      if (rows.length === 0)
        return { status: 'pass', reason: 'no printers registered', details: { printers: 0, reachable: 0 } }
      const statuses = await Promise.all(rows.map(async (row) => ({ row, status: await printerStatus(deps, row) })))
      const failing = statuses.filter(({ status }) => status.state === 'offline')
      const details = { printers: rows.length, reachable: rows.length - failing.length }
      if (failing.length === 0) return { status: 'pass', details }
      const named = failing.map(({ row, status }) => `${row.name} (${status.reason ?? 'offline'})`).join(', ')
      return {
        status: failing.length === rows.length ? 'fail' : 'warn',
        reason: `${details.reachable} of ${rows.length} printers reachable; unreachable: ${named}`,
        details,
      }
    },
  }
}
