import { offlineStatus, PrinterError, type PrinterStatus } from '../../core/printers/provider.js'

/** Runs a status read; a printer that cannot be reached or read is `offline` with the reason. */
export async function statusOrOffline(read: () => Promise<PrinterStatus>): Promise<PrinterStatus> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof PrinterError) return offlineStatus(error.message)
    return offlineStatus('the answer could not be read')
  }
}
