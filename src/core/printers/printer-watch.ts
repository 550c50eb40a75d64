import { listPrinterRows, observePrinter } from './printers.js'
import type { PrintersDeps } from './printers-deps.js'

/**
 * Looks at every printer every `intervalMs` in the background, so what happens while no page is
 * open is still seen: state changes publish their events (and webhooks go out), jobs started at
 * the printer count for bed clearance, and preparing sends settle. Reads go through the status
 * cache, so a page open at the same time does not poll twice. A pass that fails is logged and the
 * next one tries again.
 */
export function startPrinterWatch(
  deps: Pick<PrintersDeps, 'database' | 'clock' | 'logger' | 'keys' | 'printers' | 'events'>,
  options: { intervalMs: number },
): { stop(): Promise<void> } {
  const stopping = new AbortController()
  const pause = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        stopping.signal.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, options.intervalMs)
      ;(timer as { unref?: () => void }).unref?.()
      stopping.signal.addEventListener('abort', done, { once: true })
    })
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      try {
        const rows = await listPrinterRows(deps)
        await Promise.all(rows.map((row) => observePrinter(deps, row)))
      } catch (error) {
        deps.logger.warn('the printers could not be looked at', {
          error: error instanceof Error ? error.message : String(error),
        })
      }
      await pause()
    }
  })()
  return {
    async stop() {
      stopping.abort()
      await loop
    },
  }
}
