import { errors, type JWSHeaderParameters } from 'jose'
import type { Kysely } from 'kysely'
import type { CreateSha256 } from '../blobs/hasher.js'
import type { Database } from '../db/schema.js'
import type { Clock } from '../runtime/clock.js'
import { randomToken, sha256Hex } from './secrets.js'

export interface SigningKey {
  /** Key id in the token header: a hash prefix, so the secret itself is never revealed. */
  kid: string
  secret: Uint8Array
}

/** The key that signs new tokens, and every key that still verifies (for rotation). */
export interface SigningKeys {
  current: SigningKey
  byKid: ReadonlyMap<string, Uint8Array>
}

/**
 * Configured secrets (`VAULT_JWT_SECRET`, or the lines of `VAULT_JWT_KEY_FILE`: the first
 * signs, all verify) win. Without any, the vault generates a secret once and keeps it in the
 * database, so every process sharing the database signs alike and no file must be managed.
 */
export async function loadSigningKeys(
  db: Kysely<Database>,
  configured: string[],
  createSha256: CreateSha256,
  clock: Clock,
): Promise<SigningKeys> {
  const toKey = (secret: string): SigningKey => ({
    kid: sha256Hex(createSha256, secret).slice(0, 16),
    secret: new TextEncoder().encode(secret),
  })
  let secrets = configured
  if (secrets.length === 0) {
    const secret = randomToken(64)
    const kid = toKey(secret).kid
    const existing = await db.selectFrom('signing_keys').select('kid').limit(1).execute()
    if (existing.length === 0) {
      await db
        .insertInto('signing_keys')
        .values({ kid, secret, created_at: clock.now().toISOString() })
        .onConflict((oc) => oc.doNothing())
        .execute()
    }
    // Processes that started together may both have inserted; all agree on the oldest.
    const rows = await db.selectFrom('signing_keys').select('secret').orderBy('created_at').orderBy('kid').execute()
    secrets = rows.map((row) => row.secret)
  }
  const keys = secrets.map(toKey)
  const [current] = keys
  // Unreachable: configured secrets are non-empty, and the database path inserts one first.
  if (!current) throw new Error('no token-signing secret')
  return { current, byKid: new Map(keys.map((key) => [key.kid, key.secret])) }
}

/**
 * The verification key a token's `kid` names, for jose's `jwtVerify`: any key of the ring, so a
 * token signed before a rotation verifies while its key is still listed; an unknown `kid` fails.
 */
export function verificationKeyFor(keys: SigningKeys) {
  return (header: JWSHeaderParameters): Uint8Array => {
    const secret = header.kid === undefined ? undefined : keys.byKid.get(header.kid)
    if (!secret) throw new errors.JWSSignatureVerificationFailed('unknown key id')
    return secret
  }
}
