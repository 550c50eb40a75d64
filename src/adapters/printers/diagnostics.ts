import {
  type PrinterCapabilities,
  type PrinterDiagnostics,
  PrinterError,
  type PrinterStatus,
} from '../../core/printers/provider.js'
import { statusOrOffline } from './status-or-offline.js'

/**
 * Diagnoses a printer: starts from nothing known (not reachable, no identity but the
 * `software` name), runs the provider's probe on that object, records a probe failure as a
 * failed `reachable` or `authentication` check, then adds the `ready` check from a status
 * read. Never throws for a printer that fails; returns the filled-in diagnostics.
 */
export async function diagnose(
  known: { software: string; capabilities: PrinterCapabilities },
  probe: (diagnostics: PrinterDiagnostics) => Promise<void>,
  readStatus: () => Promise<PrinterStatus>,
): Promise<PrinterDiagnostics> {
  const diagnostics: PrinterDiagnostics = {
    reachable: false,
    authenticated: null,
    firmware_link: null,
    latency_ms: null,
    identity: { software: known.software, version: null, api_version: null, hostname: null },
    capabilities: known.capabilities,
    checks: [],
  }
  try {
    await probe(diagnostics)
  } catch (error) {
    const failure = error instanceof PrinterError ? error : new PrinterError('protocol', 'unexpected answer')
    if (failure.kind === 'auth') {
      diagnostics.reachable = true
      diagnostics.authenticated = false
    }
    diagnostics.checks.push({
      name: failure.kind === 'auth' ? 'authentication' : 'reachable',
      result: 'fail',
      detail: failure.message,
    })
  }
  const status = await statusOrOffline(readStatus)
  diagnostics.checks.push({
    name: 'ready',
    result: status.state === 'idle' ? 'pass' : 'warn',
    detail: `${status.state}${status.reason ? ` (${status.reason})` : ''}`,
  })
  return diagnostics
}

/**
 * A probe's first, authenticated call: times it and, when it answers, records the printer as
 * reachable and authenticated (passing `reachable` and `authentication` checks, the latter
 * with `authDetail`). A failure propagates for `diagnose` to record.
 */
export async function firstAnswer<T>(
  diagnostics: PrinterDiagnostics,
  call: () => Promise<T>,
  authDetail: string,
): Promise<T> {
  const started = performance.now()
  const value = await call()
  const ms = Math.round((performance.now() - started) * 10) / 10
  diagnostics.reachable = true
  diagnostics.authenticated = true
  diagnostics.latency_ms = ms
  diagnostics.checks.push({ name: 'reachable', result: 'pass', detail: `answered in ${ms} ms` })
  diagnostics.checks.push({ name: 'authentication', result: 'pass', detail: authDetail })
  return value
}
