import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../db/schema.js'
import { unauthorized } from '../errors.js'
import { andThen, type MaybePromise } from '../runtime/maybe-async.js'
import { signAccessToken, verifyAccessToken } from './access-tokens.js'
import { type AccountsDeps, accessTokenTtlSeconds, sessionIdleSeconds } from './accounts-deps.js'
import { everyScope, parseScopes } from './api-key-scopes.js'
import type { ConfirmedCredential } from './confirmed-credentials.js'
import { accountOf, type Principal } from './principal.js'
import { randomToken, sha256Hex } from './secrets.js'

export interface TokenPair {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
  refresh_expires_in: number
}

const refreshTokenPrefix = 'mvr_'
const addSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000).toISOString()

/** Starts a session (a refresh-token family) and returns its first token pair. */
export async function openSession(deps: AccountsDeps, userId: string, apiKeyId: string | null): Promise<TokenPair> {
  const now = deps.clock.now()
  const sessionId = crypto.randomUUID()
  const refreshToken = `${refreshTokenPrefix}${randomToken(32)}`
  await deps.database.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('sessions')
      .values({
        id: sessionId,
        user_id: userId,
        api_key_id: apiKeyId,
        created_at: now.toISOString(),
        last_used_at: now.toISOString(),
        expires_at: addSeconds(now, sessionIdleSeconds),
        revoked_at: null,
        revoked_reason: null,
      })
      .execute()
    await insertRefreshToken(trx, deps, sessionId, refreshToken, now)
  })
  return tokenPair(deps, userId, sessionId, refreshToken, now)
}

/**
 * Exchanges a refresh token for a new pair and retires the old token. A retired token that
 * comes back means someone holds a copy: the whole session is revoked (reuse detection).
 */
export async function refreshSession(deps: AccountsDeps, refreshToken: string): Promise<TokenPair> {
  const now = deps.clock.now()
  const tokenHash = sha256Hex(deps.createSha256, refreshToken)
  const invalid = unauthorized('invalid_refresh_token', 'The refresh token is not valid; sign in again.')
  const next = `${refreshTokenPrefix}${randomToken(32)}`
  const outcome = await deps.database.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('refresh_tokens')
      .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
      .select(['refresh_tokens.used_at', 'sessions.id as session_id', 'sessions.user_id'])
      .where('refresh_tokens.token_hash', '=', tokenHash)
      .executeTakeFirst()
    if (!row) return { kind: 'invalid' as const }
    // Marking it used only if it is still unused settles two concurrent refreshes: one wins.
    const claimed = await trx
      .updateTable('refresh_tokens')
      .set({ used_at: now.toISOString() })
      .where('token_hash', '=', tokenHash)
      .where('used_at', 'is', null)
      .executeTakeFirst()
    if (Number(claimed.numUpdatedRows) === 0) {
      await revokeSessionIn(trx, row.session_id, 'refresh_token_reused', now)
      return { kind: 'reused' as const }
    }
    if (!(await liveSession(trx, row.session_id, now))) return { kind: 'invalid' as const }
    await insertRefreshToken(trx, deps, row.session_id, next, now)
    await trx
      .updateTable('sessions')
      .set({ last_used_at: now.toISOString(), expires_at: addSeconds(now, sessionIdleSeconds) })
      .where('id', '=', row.session_id)
      .execute()
    return { kind: 'ok' as const, sessionId: row.session_id, userId: row.user_id }
  })
  if (outcome.kind === 'reused') {
    deps.confirmedCredentials.forget()
    throw unauthorized(
      'refresh_token_reused',
      'This refresh token was already used; the session has been revoked. Sign in again.',
    )
  }
  if (outcome.kind === 'invalid') throw invalid
  return tokenPair(deps, outcome.userId, outcome.sessionId, next, now)
}

export async function revokeSession(deps: AccountsDeps, sessionId: string, reason: string): Promise<void> {
  await revokeSessionIn(deps.database.db, sessionId, reason, deps.clock.now())
  deps.confirmedCredentials.forget()
}

/**
 * Ends every live session of a user (password change, disable), except `exceptSessionId` if
 * given, or every live session of one API key. The caller calls `confirmedCredentials.forget()`
 * once its transaction has committed.
 */
export async function revokeSessionsWhere(
  db: Kysely<Database>,
  filter: { userId: string; exceptSessionId?: string } | { apiKeyId: string },
  reason: string,
  now: Date,
): Promise<void> {
  let query = db
    .updateTable('sessions')
    .set({ revoked_at: now.toISOString(), revoked_reason: reason })
    .where('revoked_at', 'is', null)
  if ('apiKeyId' in filter) query = query.where('api_key_id', '=', filter.apiKeyId)
  else {
    query = query.where('user_id', '=', filter.userId)
    if (filter.exceptSessionId !== undefined) query = query.where('id', '!=', filter.exceptSessionId)
  }
  await query.execute()
}

/**
 * Turns a bearer token into a principal: the signature and claims must verify, and the
 * session, its user and its API key (if any) must all be live: as last read from the database
 * within `VAULT_SESSION_RECHECK_MS` (`confirmedCredentials`), so logout, revocation and
 * disabling take effect on this process's next request and on other processes' within that bound.
 */
export function authenticate(deps: AccountsDeps, token: string): MaybePromise<Principal> {
  const now = deps.clock.now()
  return andThen(verifyAccessToken(deps.keys.current().signingKeys, token, now), (claims) => {
    if (!claims) throw unauthorized('invalid_token', 'The access token is invalid or expired.')
    const confirmed = deps.confirmedCredentials.confirm(`session ${claims.sid}`, () =>
      checkSession(deps.database.db, claims.sid, now),
    )
    return andThen(confirmed, (principal) => {
      if (principal.userId !== claims.sub) throw sessionEnded()
      return principal
    })
  })
}

/** Reads the session, its user and its key (if any) from the database; throws if any is not live. */
async function checkSession(db: Kysely<Database>, sessionId: string, now: Date): Promise<ConfirmedCredential> {
  const row = await liveSession(db, sessionId, now)
  if (!row) throw sessionEnded()
  const keyExpiresAtMs = row.key_expires_at ? Date.parse(row.key_expires_at) : Infinity
  return {
    principal: {
      userId: row.user_id,
      username: row.username,
      role: row.role,
      sessionId,
      apiKeyId: row.api_key_id,
      scopes: row.scopes === null ? everyScope : parseScopes(row.scopes),
      account: accountOf(row),
    },
    expiresAtMs: Math.min(Date.parse(row.expires_at), keyExpiresAtMs),
  }
}

const sessionEnded = () => unauthorized('invalid_token', 'The session of this access token has ended; sign in again.')

function liveSession(db: Kysely<Database> | Transaction<Database>, sessionId: string, now: Date) {
  return (
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .leftJoin('api_keys', 'api_keys.id', 'sessions.api_key_id')
      .select([
        'sessions.user_id',
        'sessions.api_key_id',
        'sessions.expires_at',
        'users.username',
        'users.role',
        'users.created_at',
        'users.updated_at',
        'users.password_generated_at',
        'api_keys.scopes',
        'api_keys.expires_at as key_expires_at',
      ])
      .where('sessions.id', '=', sessionId)
      .where('sessions.revoked_at', 'is', null)
      .where('sessions.expires_at', '>', now.toISOString())
      .where('users.disabled_at', 'is', null)
      .where('api_keys.revoked_at', 'is', null)
      // A session opened with a key ends when the key expires, as when it is revoked.
      .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now.toISOString())]))
      .executeTakeFirst()
  )
}

async function revokeSessionIn(
  db: Kysely<Database> | Transaction<Database>,
  sessionId: string,
  reason: string,
  now: Date,
) {
  await db
    .updateTable('sessions')
    .set({ revoked_at: now.toISOString(), revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute()
}

async function insertRefreshToken(
  trx: Transaction<Database>,
  deps: AccountsDeps,
  sessionId: string,
  token: string,
  now: Date,
) {
  await trx
    .insertInto('refresh_tokens')
    .values({
      token_hash: sha256Hex(deps.createSha256, token),
      session_id: sessionId,
      created_at: now.toISOString(),
      used_at: null,
    })
    .execute()
}

async function tokenPair(
  deps: AccountsDeps,
  userId: string,
  sessionId: string,
  refreshToken: string,
  now: Date,
): Promise<TokenPair> {
  return {
    access_token: await signAccessToken(
      deps.keys.current().signingKeys,
      { sub: userId, sid: sessionId },
      now,
      accessTokenTtlSeconds,
    ),
    token_type: 'Bearer',
    expires_in: accessTokenTtlSeconds,
    refresh_token: refreshToken,
    refresh_expires_in: sessionIdleSeconds,
  }
}
