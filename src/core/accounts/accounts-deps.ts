import type { Deps } from '../deps.js'

/** What the account functions need: plain data and ports, passed in like a Kysely handle. */
export type AccountsDeps = Pick<Deps, 'database' | 'clock' | 'createSha256' | 'auth' | 'keys' | 'confirmedCredentials'>

/** Lifetimes. Access tokens are short because requests re-check the session anyway (within `VAULT_SESSION_RECHECK_MS`). */
export const accessTokenTtlSeconds = 15 * 60
/** A session ends after this long without a refresh; each refresh extends it. */
export const sessionIdleSeconds = 30 * 24 * 60 * 60
