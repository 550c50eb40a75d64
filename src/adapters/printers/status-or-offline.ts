import { offlineStatus, PrinterError, type PrinterDiagnostics, type PrinterStatus } from '../../core/printers/provider.js'

/** Runs a status read; a printer that cannot be reached or read is `offline` with the reason. */
export async function statusOrOffline(read: () => Promise<PrinterStatus>): Promise<PrinterStatus> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof PrinterError) return offlineStatus(error.message)
    return offlineStatus('the answer could not be read')
  }
}

/** Milliseconds a call took, to one decimal. */
export async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await call()
  return { value, ms: Math.round((performance.now() - started) * 10) / 10 }
}

/**
 * Runs a provider's probe, recording a failure as a failed `reachable` or `authentication`
 * check, then adds the `ready` check from a status read. Returns the filled-in diagnostics.
 */
export async function diagnose(diagnostics: PrinterDiagnostics, probe: () => Promise<void>, readStatus: () => Promise<PrinterStatus>): Promise<PrinterDiagnostics> {
  try {
    await probe()
  } catch (error) {
    const failure = error instanceof PrinterError ? error : new PrinterError('protocol', 'unexpected answer')
    if (failure.kind === 'auth') {
      diagnostics.reachable = true
      diagnostics.authenticated = false
    }
    diagnostics.checks.push({ name: failure.kind === 'auth' ? 'authentication' : 'reachable', result: 'fail', detail: failure.message })
  }
  const status = await statusOrOffline(readStatus)
  diagnostics.checks.push({ name: 'ready', result: status.state === 'idle' ? 'pass' : 'warn', detail: `${status.state}${status.reason ? ` (${status.reason})` : ''}` })
  return diagnostics
}
