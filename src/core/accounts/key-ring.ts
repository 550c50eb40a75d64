import type { CreateSha256 } from '../blobs/hasher.js'
import type { VaultDatabase } from '../db/database.js'
import type { Clock } from '../runtime/clock.js'
import { type CredentialCipher, loadCredentialCipher } from './credential-cipher.js'
import { loadSigningKeys, type SigningKeys } from './signing-keys.js'

/** Secrets from the configuration; whatever is not configured is generated and kept in the database. */
export interface ConfiguredKeys {
  /** `VAULT_JWT_SECRET`, or the lines of `VAULT_JWT_KEY_FILE` (first signs, all verify). */
  jwtSecrets: string[]
  /** `VAULT_PRINTER_CREDENTIALS_KEY`. */
  printerCredentialsKey?: string
}

/** The keys in force: the token-signing keys and the printer-credentials cipher. */
export interface Keys {
  signingKeys: SigningKeys
  credentials: CredentialCipher
}

/**
 * The keys of one app. Readers call `current()` each time they sign, verify, seal or open,
 * and keep nothing it returns, because `reload()` replaces the keys after a restore: the
 * restored data's printer credentials are sealed with the restored key, and tokens must be
 * signed with it so they still verify after the next start.
 */
export interface KeyRing {
  current(): Keys
  /** Loads the keys again from the configuration and the database; on failure the old keys stay. */
  reload(): Promise<void>
}

/** Loads the keys from configuration or the database (generating and storing what is missing). */
export async function createKeyRing(
  database: Pick<VaultDatabase, 'db'>,
  configured: ConfiguredKeys,
  createSha256: CreateSha256,
  clock: Clock,
): Promise<KeyRing> {
  const load = async (): Promise<Keys> => ({
    signingKeys: await loadSigningKeys(database.db, configured.jwtSecrets, createSha256, clock),
    credentials: await loadCredentialCipher(database.db, configured.printerCredentialsKey, clock),
  })
  let keys = await load()
  return {
    current: () => keys,
    async reload() {
      keys = await load()
    },
  }
}
