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
  /** The secret as jose's HMAC SHA-256 key, imported once, not on every token signed or checked. */
  key: CryptoKey
}

/** The key that signs new tokens, and every key that still verifies (for rotation). */
export interface SigningKeys {
  current: SigningKey
  byKid: ReadonlyMap<string, CryptoKey>
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
  const kidOf = (secret: string) => sha256Hex(createSha256, secret).slice(0, 16)
  let secrets = configured
  if (secrets.length === 0) {
    const existing = await db.selectFrom('signing_keys').select('kid').limit(1).execute()
    if (existing.length === 0) {
      const secret = randomToken(64)
      // `generated` is unique: of processes starting together on an empty database, one insert
      // stores its key and the others' do nothing, so all read the same key below.
      await db
        .insertInto('signing_keys')
        .values({ kid: kidOf(secret), secret, created_at: clock.now().toISOString(), generated: 1 })
        .onConflict((oc) => oc.doNothing())
        .execute()
    }
    // Installs from before migration 0034 may hold two generated keys; the oldest signs.
    const rows = await db.selectFrom('signing_keys').select('secret').orderBy('created_at').orderBy('kid').execute()
    secrets = rows.map((row) => row.secret)
  }
  const keys = await Promise.all(
    secrets.map(async (text): Promise<SigningKey> => {
      const secret = new TextEncoder().encode(text)
      return { kid: kidOf(text), secret, key: await importHmacKey(secret) }
    }),
  )
  const [current] = keys
  // Unreachable: configured secrets are non-empty, and the database path inserts one first.
  if (!current) throw new Error('no token-signing secret')
  return { current, byKid: new Map(keys.map((key) => [key.kid, key.key])) }
}

function importHmacKey(secret: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', secret as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ])
}

/**
 * The verification key a token's `kid` names, for jose's `jwtVerify`: any key of the ring, so a
 * token signed before a rotation verifies while its key is still listed; an unknown `kid` fails.
 */
export function verificationKeyFor(keys: SigningKeys) {
  return (header: JWSHeaderParameters): CryptoKey => {
    const key = header.kid === undefined ? undefined : keys.byKid.get(header.kid)
    if (!key) throw new errors.JWSSignatureVerificationFailed('unknown key id')
    return key
  }
}
