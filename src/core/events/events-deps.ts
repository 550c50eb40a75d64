import type { AccountsDeps } from '../accounts/accounts-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'
import type { EventSignal } from './event-signal.js'

/** What the event log and webhooks take; each function picks its part. */
export interface EventsDeps
  extends Pick<RuntimeDeps, 'service' | 'database' | 'clock' | 'logger'>,
    Pick<AccountsDeps, 'keys'> {
  events: {
    /** This process's wake-up for its readers when it publishes. */
    signal: EventSignal
    /** How long a webhook's receiver has to answer one delivery. */
    deliveryTimeoutMs: number
  }
}
