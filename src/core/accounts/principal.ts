import type { Role } from '../db/schema.js'
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
}
