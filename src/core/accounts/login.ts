import type { ApiKeysTable } from '../db/schema.js'
import { unauthorized, VaultError } from '../errors.js'
import type { AccountsDeps } from './accounts-deps.js'
import { findLiveApiKey, isExpired, keyExpired } from './api-keys.js'
import { assertNotThrottled, clearPasswordFailures, recordLoginFailure, throttleKeys } from './login-throttle.js'
import type { Principal } from './principal.js'
import { openSession, type TokenPair } from './sessions.js'
import type { PublicUser } from './users.js'
import { findUserByName, getUser, setPassword, toPublicUser, usernameKey } from './users.js'

export type Credentials = { username: string; password: string } | { username: string; api_key: string }

/**
 * Signs a user in with a password or one of their API keys and opens a session.
 * A wrong username, a wrong password, a disabled account and a foreign or revoked key all
 * give the same answer after the same work (an unknown user still costs one password
 * verification), so the answer reveals nothing about which accounts exist.
 */
export async function login(
  deps: AccountsDeps,
  credentials: Credentials,
  clientAddress: string | undefined,
): Promise<TokenPair & { user: PublicUser }> {
  const { db } = deps.database
  const now = deps.clock.now()
  const keys = throttleKeys(
    'password' in credentials ? 'password' : 'api_key',
    usernameKey(credentials.username),
    clientAddress,
  )
  await assertNotThrottled(db, keys, now)

  const user = await findUserByName(db, credentials.username)
  let apiKey: ApiKeysTable | undefined
  let valid: boolean
  if ('password' in credentials) {
    const { passwordHasher, decoyPasswordHash } = deps.auth
    valid =
      (await passwordHasher.verify(credentials.password, user?.password_hash ?? decoyPasswordHash)) &&
      user !== undefined
  } else {
    apiKey = await findLiveApiKey(deps, credentials.api_key)
    valid = apiKey !== undefined && apiKey.user_id === user?.id
  }
  if (!valid || !user || user.disabled_at !== null) {
    // Dated when decided, not when the request began: a password check can wait seconds for the
    // thread pool under load, and the lock must run its full length from the failure.
    await recordLoginFailure(db, keys, deps.clock.now())
    throw unauthorized('invalid_credentials', 'The username or the credential is wrong.')
  }
  // Not a failed guess (the caller holds the key): not counted, so a hook retrying an expired
  // key does not lock its owner's other keys out.
  if (apiKey && isExpired(apiKey, now)) throw keyExpired(apiKey, 'invalid_credentials')

  if ('password' in credentials) await clearPasswordFailures(db, user.username_key)
  if ('password' in credentials && deps.auth.passwordHasher.needsRehash(user.password_hash)) {
    const upgraded = await deps.auth.passwordHasher.hash(credentials.password)
    await db.updateTable('users').set({ password_hash: upgraded }).where('id', '=', user.id).execute()
  }
  if (apiKey)
    await db.updateTable('api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', apiKey.id).execute()
  return { ...(await openSession(deps, user.id, apiKey?.id ?? null)), user: toPublicUser(user) }
}

/**
 * Changes the signed-in user's password after checking the current one. Wrong current
 * passwords are throttled like failed sign-ins: a stolen access token must not become an
 * unlimited password oracle. Other sessions end; this one stays.
 */
export async function changeOwnPassword(
  deps: AccountsDeps,
  principal: Principal,
  passwords: { current: string; next: string },
  clientAddress: string | undefined,
): Promise<void> {
  const { db } = deps.database
  const now = deps.clock.now()
  const user = await getUser(db, principal.userId)
  const keys = throttleKeys('password', user.username_key, clientAddress)
  await assertNotThrottled(db, keys, now)
  if (!(await deps.auth.passwordHasher.verify(passwords.current, user.password_hash))) {
    await recordLoginFailure(db, keys, deps.clock.now())
    throw new VaultError('wrong_password', 'The current password is wrong.')
  }
  await clearPasswordFailures(db, user.username_key)
  await setPassword(deps, user.id, passwords.next, { keepSessionId: principal.sessionId, field: 'new_password' })
}
