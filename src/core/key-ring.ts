import type { Kysely } from 'kysely'
import { loadSigningKeys, type SigningKeys } from './auth/signing-keys.js'
import type { CreateSha256 } from './blobs/hasher.js'
import type { Database } from './db/schema.js'
import type { Deps } from './deps.js'
import { loadCredentialCipher, type CredentialCipher } from './printers/credentials.js'
import type { Clock } from './runtime/clock.js'

/** Secrets from the configuration; whatever is not configured is generated and kept in the database. */
export interface ConfiguredKeys {
  /** `VAULT_JWT_SECRET`, or the lines of `VAULT_JWT_KEY_FILE` (first signs, all verify). */
  jwtSecrets: string[]
  /** `VAULT_PRINTER_CREDENTIALS_KEY`. */
  printerCredentialsKey?: string
}

export interface StoredKeys {
  signingKeys: SigningKeys
  credentials: CredentialCipher
}

/** The token-signing keys and the printer-credentials cipher, from configuration or the database. */
export async function loadStoredKeys(
  db: Kysely<Database>,
  configured: ConfiguredKeys,
  createSha256: CreateSha256,
  clock: Clock,
): Promise<StoredKeys> {
  return {
    signingKeys: await loadSigningKeys(db, configured.jwtSecrets, createSha256, clock),
    credentials: await loadCredentialCipher(db, configured.printerCredentialsKey, clock),
  }
}

/**
 * Reloads the keys after a restore replaced the database: the restored data's printer
 * credentials are sealed with the restored key, and tokens must be signed with it so they
 * still verify after the next start.
 */
export async function reloadStoredKeys(
  deps: Pick<Deps, 'database' | 'configuredKeys' | 'createSha256' | 'clock' | 'auth' | 'printers'>,
): Promise<void> {
  const keys = await loadStoredKeys(deps.database.db, deps.configuredKeys, deps.createSha256, deps.clock)
  deps.auth.signingKeys = keys.signingKeys
  deps.printers.credentials = keys.credentials
}
