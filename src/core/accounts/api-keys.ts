import type { Kysely } from 'kysely'
import type { ApiKeysTable, Database } from '../db/schema.js'
import { type CodeOfStatus, unauthorized, unprocessable, VaultError } from '../errors.js'
import type { MaybePromise } from '../runtime/maybe-async.js'
import type { AccountsDeps } from './accounts-deps.js'
import { type ApiKeyScope, formatScopes, parseScopes } from './api-key-scopes.js'
import type { ConfirmedCredential } from './confirmed-credentials.js'
import { accountOf, type Principal } from './principal.js'
import { constantTimeEqual, randomToken, sha256Hex } from './secrets.js'
import { revokeSessionsWhere } from './sessions.js'

/** An API key as listings show it: name and visible prefix, never the value or its hash. */
export interface PublicApiKey {
  id: string
  name: string
  prefix: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  scopes: ApiKeyScope[]
  expires_at: string | null
}

/** What a new key is for, and until when. */
export interface NewApiKey {
  name: string
  scopes: readonly ApiKeyScope[]
  /** ISO 8601; null: the key never expires. */
  expires_at: string | null
}

/**
 * Keys look like `mvk_<12 hex>_<43 base64url>`: the first part is a visible prefix for
 * telling keys apart (and finding the row), the rest is 256 random bits. Only a SHA-256 of
 * the whole key is stored: the key has too much entropy for a slow KDF to add anything.
 */
const keyPattern = /^mvk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/

export const toPublicApiKey = (row: ApiKeysTable): PublicApiKey => ({
  id: row.id,
  name: row.name,
  prefix: `mvk_${row.prefix}`,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
  revoked_at: row.revoked_at,
  scopes: parseScopes(row.scopes),
  expires_at: row.expires_at,
})

export async function createApiKey(
  deps: AccountsDeps,
  userId: string,
  input: NewApiKey,
): Promise<PublicApiKey & { key: string }> {
  const trimmed = input.name.trim()
  if (trimmed.length === 0 || trimmed.length > 100) {
    throw unprocessable('The name must be 1-100 characters.', [
      { path: 'body.name', message: 'must be 1-100 characters' },
    ])
  }
  const now = deps.clock.now()
  if (input.expires_at !== null && Date.parse(input.expires_at) <= now.getTime()) {
    throw unprocessable('The expiry must be in the future.', [
      { path: 'body.expires_at', message: 'must be in the future' },
    ])
  }
  const { db } = deps.database
  const clash = await db
    .selectFrom('api_keys')
    .select('id')
    .where('user_id', '=', userId)
    .where('name', '=', trimmed)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  if (clash) throw new VaultError('api_key_name_taken', `You already have an active API key named "${trimmed}".`)
  const prefix = [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, '0')).join('')
  const key = `mvk_${prefix}_${randomToken(32)}`
  const row: ApiKeysTable = {
    id: crypto.randomUUID(),
    user_id: userId,
    name: trimmed,
    prefix,
    key_hash: sha256Hex(deps.createSha256, key),
    created_at: now.toISOString(),
    last_used_at: null,
    revoked_at: null,
    scopes: formatScopes(input.scopes),
    expires_at: input.expires_at === null ? null : new Date(input.expires_at).toISOString(),
  }
  await db.insertInto('api_keys').values(row).execute()
  return { ...toPublicApiKey(row), key }
}

export async function listApiKeys(db: Kysely<Database>, userId: string): Promise<PublicApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.map(toPublicApiKey)
}

/** Revokes one of the user's keys and ends every session opened with it. */
export async function revokeApiKey(deps: AccountsDeps, userId: string, keyId: string): Promise<PublicApiKey> {
  const now = deps.clock.now()
  const revoked = await deps.database.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', keyId)
      .where('user_id', '=', userId)
      .executeTakeFirst()
    if (!row) throw new VaultError('not_found', `You have no API key with the id ${keyId}.`)
    const revokedAt = row.revoked_at ?? now.toISOString()
    await trx.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute()
    await revokeSessionsWhere(trx, { apiKeyId: keyId }, 'api_key_revoked', now)
    return toPublicApiKey({ ...row, revoked_at: revokedAt })
  })
  deps.confirmedCredentials.forget()
  return revoked
}

/** How often a key's `last_used_at` is written when it authenticates requests on its own. */
const lastUsedResolutionMs = 60_000

/**
 * Who presents this API key as their credential (`Authorization: Bearer mvk_…` or `X-Api-Key`),
 * as scripts, slicer hooks and OctoPrint-style clients do: the key's owner, without a session.
 * The key and its owner are as last read within `VAULT_SESSION_RECHECK_MS` (`confirmedCredentials`,
 * which keeps the key's hash, not the key).
 */
export function authenticateApiKey(deps: AccountsDeps, key: string): MaybePromise<Principal> {
  return deps.confirmedCredentials.confirm(`key ${sha256Hex(deps.createSha256, key)}`, () => checkApiKey(deps, key))
}

async function checkApiKey(deps: AccountsDeps, key: string): Promise<ConfirmedCredential> {
  const now = deps.clock.now()
  const row = await findLiveApiKey(deps, key)
  if (row && isExpired(row, now)) throw keyExpired(row, 'invalid_token')
  const owner =
    row &&
    (await deps.database.db
      .selectFrom('users')
      .select(['id', 'username', 'role', 'created_at', 'updated_at', 'password_generated_at'])
      .where('id', '=', row.user_id)
      .where('disabled_at', 'is', null)
      .executeTakeFirst())
  if (!row || !owner) throw unauthorized('invalid_token', 'The API key is unknown or revoked, or its user is disabled.')
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) > lastUsedResolutionMs)
    await deps.database.db
      .updateTable('api_keys')
      .set({ last_used_at: now.toISOString() })
      .where('id', '=', row.id)
      .execute()
  return {
    principal: {
      userId: owner.id,
      username: owner.username,
      role: owner.role,
      sessionId: null,
      apiKeyId: row.id,
      scopes: parseScopes(row.scopes),
      account: accountOf(owner),
    },
    expiresAtMs: row.expires_at === null ? null : Date.parse(row.expires_at),
  }
}

export const isExpired = (row: ApiKeysTable, now: Date): boolean =>
  row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime()

/**
 * The 401 for a key past its `expires_at`, saying when it expired: whoever presents the key holds
 * its 256 random bits, so this tells them nothing they could not know, and spares a hook's owner
 * the guessing.
 */
export const keyExpired = (row: ApiKeysTable, code: CodeOfStatus<401>) =>
  unauthorized(code, `The API key expired at ${row.expires_at}; create a new one in Settings → Access.`)

/** Whether a bearer credential is an API key rather than an access token. */
export const looksLikeApiKey = (token: string): boolean => token.startsWith('mvk_')

/** The live key row matching `key`, or undefined. Compares hashes in constant time. */
export async function findLiveApiKey(deps: AccountsDeps, key: string): Promise<ApiKeysTable | undefined> {
  const hash = sha256Hex(deps.createSha256, key)
  const prefix = keyPattern.exec(key)?.[1]
  if (!prefix) return undefined
  const row = await deps.database.db
    .selectFrom('api_keys')
    .selectAll()
    .where('prefix', '=', prefix)
    .where('revoked_at', 'is', null)
    .executeTakeFirst()
  return row && constantTimeEqual(row.key_hash, hash) ? row : undefined
}
