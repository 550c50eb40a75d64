import type { Clock } from '../runtime/clock.js'
import type { MaybePromise } from '../runtime/maybe-async.js'
import type { Principal } from './principal.js'

/** What a credential check found in the database: the caller, and when the credential ends by itself. */
export interface ConfirmedCredential {
  principal: Principal
  /** Epoch milliseconds of the session's idle end or the key's `expires_at`, whichever is first; null: never. */
  expiresAtMs: number | null
}

/**
 * Credentials (an access token's session, an API key) found live in the database within the last
 * `recheckMs` (`VAULT_SESSION_RECHECK_MS`), so a client's run of requests costs one check per
 * window instead of one each. The window is the bound on revocation made elsewhere: a logout, a
 * disabled user, a revoked key or a role change done by another process sharing the database (a
 * replica, the CLI, a restore) is honoured here at most `recheckMs` after it commits. Changes
 * this process makes call `forget()` once committed and take effect on the very next request.
 * A credential past its own expiry is never answered from here.
 */
export interface ConfirmedCredentials {
  /**
   * The principal `credential` was last confirmed as, at once, if within the window; else runs
   * `check` (which reads the database and throws for a dead credential) and remembers its answer.
   * An answer whose check overlapped a `forget()` is used once but not remembered.
   */
  confirm(credential: string, check: () => Promise<ConfirmedCredential>): MaybePromise<Principal>
  /** Drops every remembered answer: call after committing a change to sessions, users or keys. */
  forget(): void
}

/** Enough for every active client of one install; a few MiB at most. */
const confirmationsKept = 10_000

export function createConfirmedCredentials(clock: Clock, recheckMs: number): ConfirmedCredentials {
  const confirmed = new Map<string, ConfirmedCredential & { checkedAtMs: number }>()
  let generation = 0
  const checkAndRemember = async (
    credential: string,
    check: () => Promise<ConfirmedCredential>,
    startedAtMs: number,
  ) => {
    const checkedIn = generation
    const found = await check()
    if (recheckMs > 0 && checkedIn === generation) {
      confirmed.set(credential, { ...found, checkedAtMs: startedAtMs })
      // Map order is insertion order: the oldest goes first.
      if (confirmed.size > confirmationsKept) confirmed.delete(confirmed.keys().next().value as string)
    }
    return found.principal
  }
  return {
    confirm(credential, check) {
      const startedAtMs = clock.now().getTime()
      const known = confirmed.get(credential)
      if (known) {
        // The window counts from when the database was read; a clock that went back ends it.
        const fresh = startedAtMs >= known.checkedAtMs && startedAtMs - known.checkedAtMs < recheckMs
        if (fresh && (known.expiresAtMs === null || startedAtMs < known.expiresAtMs)) return known.principal
        confirmed.delete(credential)
      }
      return checkAndRemember(credential, check, startedAtMs)
    },
    forget() {
      generation += 1
      confirmed.clear()
    },
  }
}
