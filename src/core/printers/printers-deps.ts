import type { AccountsDeps } from '../accounts/accounts-deps.js'
import type { StorageDeps } from '../blobs/storage-deps.js'
import type { EventsDeps } from '../events/events-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'
import type { PrinterProviderKind } from './provider-kind.js'
import type { PrinterStatusCache } from './status-cache.js'

/** What the printer functions take; each picks its part. */
export interface PrintersDeps
  extends Pick<RuntimeDeps, 'service' | 'database' | 'clock' | 'logger' | 'liveness'>,
    Pick<StorageDeps, 'blobs'>,
    Pick<AccountsDeps, 'keys'>,
    Pick<EventsDeps, 'events'> {
  /** The printer provider kinds this runtime offers, this app's status cache, and the timeouts. */
  printers: {
    providers: readonly PrinterProviderKind[]
    statusCache: PrinterStatusCache
    /** Per-request timeout towards a printer. */
    timeoutMs: number
    /** How long `send` waits for a started printer to show that it prints. */
    confirmMs: number
  }
}
