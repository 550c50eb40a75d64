import { base64url } from 'jose'
import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import type { Clock } from '../runtime/clock.js'
import { randomToken } from './secrets.js'

/** What the cipher keeps: a printer's credential fields, by name. */
export type SealedFields = Readonly<Record<string, string>>

/**
 * Encrypts printer credentials at rest with AES-256-GCM (WebCrypto, so every runtime has it).
 * Sealed values are `v1.<kid>.<iv>.<ciphertext>`; the key id says which key sealed them, so a
 * vault started with another key fails with a clear message instead of garbage.
 */
export interface CredentialCipher {
  seal(credentials: SealedFields): Promise<string>
  open(sealed: string): Promise<SealedFields>
}

export class CredentialKeyError extends Error {
  override name = 'CredentialKeyError'
}

const encoder = new TextEncoder()

async function deriveKey(secret: string): Promise<{ kid: string; key: CryptoKey }> {
  const material = new Uint8Array(
    await crypto.subtle.digest('SHA-256', encoder.encode(`model-vault printer credentials\0${secret}`)),
  )
  const kidBytes = new Uint8Array(await crypto.subtle.digest('SHA-256', material))
  const kid = [...kidBytes.slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join('')
  const key = await crypto.subtle.importKey('raw', material, 'AES-GCM', false, ['encrypt', 'decrypt'])
  return { kid, key }
}

export async function createCredentialCipher(secret: string): Promise<CredentialCipher> {
  const { kid, key } = await deriveKey(secret)
  return {
    async seal(credentials) {
      const iv = crypto.getRandomValues(new Uint8Array(12))
      const data = encoder.encode(JSON.stringify(credentials))
      const sealed = new Uint8Array(
        await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: encoder.encode(kid) }, key, data),
      )
      return `v1.${kid}.${base64url.encode(iv)}.${base64url.encode(sealed)}`
    },
    async open(sealed) {
      const [version, sealedKid, iv, data] = sealed.split('.')
      if (version !== 'v1' || !iv || !data) throw new CredentialKeyError('stored printer credentials are malformed')
      if (sealedKid !== kid) {
        throw new CredentialKeyError(
          'stored printer credentials were encrypted with another key; restore VAULT_PRINTER_CREDENTIALS_KEY or enter the credentials again',
        )
      }
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: new Uint8Array(base64url.decode(iv)), additionalData: encoder.encode(kid) },
        key,
        new Uint8Array(base64url.decode(data)),
      )
      return JSON.parse(new TextDecoder().decode(plain)) as SealedFields
    },
  }
}

/**
 * `VAULT_PRINTER_CREDENTIALS_KEY` when configured. Otherwise a key is generated once and kept
 * in the database (as the JWT signing key is), so every process of the install agrees; set
 * the variable to keep the key out of the database and its backups.
 */
export async function loadCredentialCipher(
  db: Kysely<Database>,
  configured: string | undefined,
  clock: Clock,
): Promise<CredentialCipher> {
  if (configured) return createCredentialCipher(configured)
  const existing = await db.selectFrom('printer_credential_keys').select('kid').limit(1).execute()
  if (existing.length === 0) {
    const secret = randomToken(32)
    // `generated` is unique: processes starting together on an empty database store one key.
    await db
      .insertInto('printer_credential_keys')
      .values({ kid: (await deriveKey(secret)).kid, secret, created_at: clock.now().toISOString(), generated: 1 })
      .onConflict((oc) => oc.doNothing())
      .execute()
  }
  // Installs from before migration 0034 may hold two generated keys; the oldest seals.
  const row = await db
    .selectFrom('printer_credential_keys')
    .select('secret')
    .orderBy('created_at')
    .orderBy('kid')
    .limit(1)
    .executeTakeFirstOrThrow()
  return createCredentialCipher(row.secret)
}
