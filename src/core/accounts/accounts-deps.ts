import type { StorageDeps } from '../blobs/storage-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'
import type { ConfirmedCredentials } from './confirmed-credentials.js'
import type { KeyRing } from './key-ring.js'
import type { PasswordHasher } from './password-hasher.js'

/** What the account functions need: plain data and ports, passed in like a Kysely handle. */
export interface AccountsDeps extends Pick<RuntimeDeps, 'database' | 'clock'>, Pick<StorageDeps, 'createSha256'> {
  auth: {
    passwordHasher: PasswordHasher
    /** A hash checked when the username is unknown, so unknown and known users cost the same. */
    decoyPasswordHash: string
  }
  /** The token-signing keys and the printer-credentials cipher; read with `keys.current()` at use time. */
  keys: KeyRing
  /**
   * Sessions and API keys found live within `VAULT_SESSION_RECHECK_MS`: the bound on how long a
   * revocation made by another process takes to reach this one.
   */
  confirmedCredentials: ConfirmedCredentials
}

/** Lifetimes. Access tokens are short because requests re-check the session anyway (within `VAULT_SESSION_RECHECK_MS`). */
export const accessTokenTtlSeconds = 15 * 60
/** A session ends after this long without a refresh; each refresh extends it. */
export const sessionIdleSeconds = 30 * 24 * 60 * 60
