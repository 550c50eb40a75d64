import type { Generated } from 'kysely'

/**
 * Table types for Kysely. One schema serves SQLite and PostgreSQL, so columns keep to types
 * both read back the same way: text ids (UUIDs), ISO-8601 UTC timestamps as text (they sort
 * correctly as strings), and integers that fit in a JavaScript number.
 */
export interface InstallationTable {
  singleton: Generated<number>
  id: string
  created_at: string
}

export type Role = 'user' | 'admin' | 'superuser'

export interface UsersTable {
  id: string
  username: string
  username_key: string
  password_hash: string
  role: Role
  disabled_at: string | null
  created_at: string
  updated_at: string
}

export interface ApiKeysTable {
  id: string
  user_id: string
  name: string
  /** Public part of the key, shown in listings: `mvk_<prefix>_…`. */
  prefix: string
  key_hash: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}

export interface SessionsTable {
  id: string
  user_id: string
  /** Set when the session was opened with an API key; revoking the key ends the session. */
  api_key_id: string | null
  created_at: string
  last_used_at: string
  expires_at: string
  revoked_at: string | null
  revoked_reason: string | null
}

export interface RefreshTokensTable {
  token_hash: string
  session_id: string
  created_at: string
  /** When it was exchanged; presenting it again revokes its session (reuse detection). */
  used_at: string | null
}

export interface LoginFailuresTable {
  key: string
  failures: number
  first_failure_at: string
  locked_until: string | null
}

export interface SigningKeysTable {
  kid: string
  secret: string
  created_at: string
}

export interface ModelsTable {
  id: string
  name: string
  description: Generated<string>
  thumbnail_sha256: string | null
  thumbnail_content_type: string | null
  created_by: string | null
  created_at: string
  updated_at: string
}

export interface FilesTable {
  id: string
  sha256: string
  size: number
  model_id: string
  original_name: string
  name_key: string
  /** `stl`, `3mf`, `obj`, `gcode`, `step` or `other`. */
  format: string
  content_type: string
  /** JSON of the format's extracted metadata. */
  metadata: string
  /** JSON array of sentences: what could not be read, and why. */
  parse_warnings: string
  mesh_triangles: number | null
  mesh_size_x: number | null
  mesh_size_y: number | null
  mesh_size_z: number | null
  mesh_volume: number | null
  thumbnail_sha256: string | null
  thumbnail_content_type: string | null
  uploaded_by: string | null
  created_at: string
}

export interface Database {
  installation: InstallationTable
  users: UsersTable
  api_keys: ApiKeysTable
  sessions: SessionsTable
  refresh_tokens: RefreshTokensTable
  login_failures: LoginFailuresTable
  signing_keys: SigningKeysTable
  models: ModelsTable
  files: FilesTable
}
