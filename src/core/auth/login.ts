import type { PublicUser } from '../users/users.js'
import { findUserByName, toPublicUser, usernameKey } from '../users/users.js'
import { unauthorized } from '../errors.js'
import type { AccountsDeps } from './accounts-deps.js'
import { findLiveApiKey } from './api-keys.js'
import { assertNotThrottled, clearAccountFailures, recordLoginFailure, throttleKeys } from './login-throttle.js'
import { openSession, type TokenPair } from './sessions.js'

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
  const keys = throttleKeys(usernameKey(credentials.username), clientAddress)
  await assertNotThrottled(db, keys, now)

  const user = await findUserByName(db, credentials.username)
  let apiKeyId: string | null = null
  let valid: boolean
  if ('password' in credentials) {
    const { passwordHasher, decoyPasswordHash } = deps.auth
    valid = (await passwordHasher.verify(credentials.password, user?.password_hash ?? decoyPasswordHash)) && user !== undefined
  } else {
    const key = await findLiveApiKey(deps, credentials.api_key)
    valid = key !== undefined && key.user_id === user?.id
    apiKeyId = key?.id ?? null
  }
  if (!valid || !user || user.disabled_at !== null) {
    await recordLoginFailure(db, keys, now)
    throw unauthorized('invalid_credentials', 'The username or the credential is wrong.')
  }

  await clearAccountFailures(db, keys)
  if ('password' in credentials && deps.auth.passwordHasher.needsRehash(user.password_hash)) {
    const upgraded = await deps.auth.passwordHasher.hash(credentials.password)
    await db.updateTable('users').set({ password_hash: upgraded }).where('id', '=', user.id).execute()
  }
  if (apiKeyId) await db.updateTable('api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', apiKeyId).execute()
  return { ...(await openSession(deps, user.id, apiKeyId)), user: toPublicUser(user) }
}
