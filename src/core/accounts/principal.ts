import type { Role, UsersTable } from '../db/schema.js'
import type { ApiKeyScope } from './api-key-scopes.js'

/**
 * Who is calling, as established from a verified access token and a live session, or from an
 * API key presented as it is (then there is no session).
 */
export interface Principal {
  userId: string
  username: string
  role: Role
  sessionId: string | null
  apiKeyId: string | null
  /** The key's scopes when an API key is behind the request (on its own or as the session's sign-in), else every scope. */
  scopes: readonly ApiKeyScope[]
  /** The rest of the account as of the credential's check, for `GET /me` (without a second read). */
  account: { createdAt: string; updatedAt: string; passwordGenerated: boolean }
}

/** What a principal carries of its account, from the row its credential check read. */
export const accountOf = (row: Pick<UsersTable, 'created_at' | 'updated_at' | 'password_generated_at'>) => ({
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  passwordGenerated: row.password_generated_at !== null,
})
