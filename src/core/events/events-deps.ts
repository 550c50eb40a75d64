import type { AccountsDeps } from '../accounts/accounts-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'
import type { EventLogPoll } from './event-log-poll.js'
import type { EventSignal } from './event-signal.js'

/** What the event log and webhooks take; each function picks its part. */
export interface EventsDeps
  extends Pick<RuntimeDeps, 'service' | 'database' | 'clock' | 'logger'>,
    Pick<AccountsDeps, 'keys'> {
  events: {
    /** This process's wake-up for its readers when it publishes. */
    signal: EventSignal
    /** One read of the event log per interval, shared by every open stream of this process; it wakes `signal`. */
    logPoll: EventLogPoll
    /** How long a webhook's receiver has to answer one delivery. */
    deliveryTimeoutMs: number
  }
}
