/** The front page of the API reference: conventions every endpoint follows. */
export const apiDescription = `
model-vault keeps 3D-printing files (STL, 3MF, OBJ, STEP, G-code), their thumbnails and metadata,
and sends G-code to networked printers. This one API serves the web UI, slicer post-processing
hooks, scripts and generated clients.

## Conventions

- All paths start with \`/api/v1\`. Within v1, changes are additive: new endpoints, new optional
  request fields and new response fields. Clients must ignore response fields they do not know.
- JSON field names are \`snake_case\`. Timestamps are ISO 8601 in UTC (\`2026-11-21T08:00:00.000Z\`).
  Ids are opaque strings.
- Every response carries an \`X-Request-Id\` header. Send your own (letters, digits, \`-\`, \`_\`, \`=\`;
  up to 255 characters) to correlate a request with the server log; otherwise one is generated.
- Every answer carries browser protections: a \`Content-Security-Policy\` (scripts and requests to this
  vault's own origin only, \`frame-ancestors 'self'\`), \`X-Frame-Options: SAMEORIGIN\`,
  \`X-Content-Type-Options: nosniff\` and \`Referrer-Policy: no-referrer\`.
- Pages of other origins may call the API only when the operator lists their origin in
  \`VAULT_CORS_ORIGINS\` (CORS is off by default); a preflight from a listed origin answers 204.
- Beside the API: \`GET /metrics\` (Prometheus text format) when the operator sets \`VAULT_METRICS_TOKEN\`;
  it takes that token as \`Authorization: Bearer …\`, not a user's credential, and is not listed here.

## Authentication

Every endpoint except \`GET /api/v1/health\`, \`POST /api/v1/auth/login\` and \`POST /api/v1/auth/refresh\`
needs a credential: \`Authorization: Bearer <access_token>\` (people, the web UI) or an API key
(\`Authorization: Bearer mvk_…\`, or \`X-Api-Key: mvk_…\` as OctoPrint clients send it; scripts and slicer hooks).

1. **Sign in**: \`POST /api/v1/auth/login\` with \`{"username", "password"}\` (people) or \`{"username", "api_key"}\`.
   The answer holds an \`access_token\` (a JWT, valid 15 minutes) and a \`refresh_token\` (single use).
2. **Refresh** before the access token expires: \`POST /api/v1/auth/refresh\` with \`{"refresh_token"}\` returns a new
   pair. A refresh token that is used twice revokes its whole session.
3. **Sign out**: \`POST /api/v1/auth/logout\`.

**API keys** (\`POST /api/v1/api-keys\`, Settings → Access) act for their owner on every request that presents
them, with no session: nothing to refresh, and revoking the key stops it at once.

**Key scopes.** A key has scopes, and acts with the intersection of its scopes and its owner's role; a session opened
with a key keeps the key's scopes, and a password sign-in has every scope:

| Scope | Allows |
|---|---|
| \`upload\` | Ingest (\`POST /api/v1/ingest\`, \`PUT /api/v1/ingest/{filename}\`): all a slicer hook needs. |
| \`read\` | Every \`GET\` the role allows, but backups, API keys and user administration. |
| \`print\` | Read printers and dispatches, send to a printer, confirm a bed clear. |
| \`manage\` | Change the library: models, collections, filament and printer profiles; edits and deletes. |
| \`full\` | Everything the role allows, also backups and restores, API keys, printer setup, the password and user administration. |

Any key may call \`GET /api/v1/me\` (which lists the credential's \`scopes\`) and sign out. Scopes do not include
one another (\`manage\` does not hold \`read\`). Each operation lists the scopes that will do (any one of them, or
\`full\`) in its security requirements and in \`x-required-scopes\`. A key may expire (\`expires_at\`); an expired key
is 401 \`invalid_token\` with the time it expired, and so are the sessions opened with it.

Every request re-checks its session or key, so signing out, revoking an API key, disabling a user or resetting a
password takes effect on the next request, not when tokens expire.

Roles: \`user\` < \`admin\` < \`superuser\`; each includes the one before. Each operation names the role it needs
(\`x-required-role\`). A missing, invalid or expired token or an unknown, revoked or expired key is 401
(\`missing_token\`, \`invalid_token\`), a valid credential without the role 403 (\`insufficient_role\`), a key without
the scope 403 (\`insufficient_scope\`, with \`WWW-Authenticate: Bearer error="insufficient_scope", scope="…"\`).

A slicer post-processing hook uploads with an \`upload\`-only API key alone:

\`\`\`sh
curl -sf -H "X-Api-Key: $VAULT_API_KEY" -F "file=@$1" "$VAULT/api/v1/ingest"
\`\`\`

## Errors

Every error is \`application/problem+json\` ([RFC 9457](https://www.rfc-editor.org/rfc/rfc9457)) with these members:
\`type\` (\`about:blank\`), \`title\`, \`status\`, \`detail\` (a sentence for people), \`code\` (stable, for programs),
\`instance\` (the request path), \`request_id\`, and for validation failures \`errors\`: a list of
\`{path, message}\` naming each offending field (\`body.username\`, \`query.limit\`). The \`Problem\`
schema's \`code\` enum lists every code; each operation's answers name the ones it gives.

| Status | code | When |
|---|---|---|
| 400 | \`malformed_json\` | The body is not valid JSON. |
| 400 | \`bad_request\` | The request cannot be read for another reason. |
| 401 | \`missing_token\`, \`invalid_token\`, \`invalid_credentials\`, \`invalid_refresh_token\`, \`refresh_token_reused\` | Not signed in, or the credential is wrong or no longer valid. |
| 403 | \`insufficient_role\`, \`insufficient_scope\`, \`wrong_password\` | Signed in, but not allowed. |
| 404 | \`not_found\` | No such route, or no such resource. |
| 405 | \`method_not_allowed\` | The path exists but not with this method; the \`Allow\` header lists the methods. |
| 409 | (per endpoint) | The request conflicts with the current state. |
| 413 | \`payload_too_large\` | The body is over its bound: \`VAULT_MAX_BODY_BYTES\` (default 1 MiB) for JSON, \`VAULT_MAX_UPLOAD_BYTES\` for files. Refused before reading (chunked bodies at the bound); the connection is closed once the rest of the body has been read and discarded (up to 15 s or 512 MiB), so a client that sends everything before reading still gets this answer. |
| 415 | \`unsupported_media_type\` | A JSON operation got a body without \`Content-Type: application/json\` (or an upload without \`multipart/form-data\`). |
| 416 | \`range_not_satisfiable\` | A \`Range\` wholly past the end of a file; \`Content-Range: bytes */<size>\`. A \`Range\` that cannot be read (\`bytes=5-2\`) is ignored and the whole file sent. |
| 422 | \`validation_failed\` | The request is well-formed but does not match the schema. |
| 422 | \`invalid_archive\`, \`incompatible_archive\` | A backup archive is damaged, or cannot be restored by this build. |
| 429 | \`too_many_attempts\` | Too many failed sign-ins; the \`Retry-After\` header says how many seconds to wait. |
| 500 | \`internal_error\` | A fault on the server. The answer contains only the request id; details go to the server log. |
| 502 | \`backup_location_unreachable\` | A backup archive is only to be found in a bucket that cannot be reached. |
| 503 | (health) | A required component is down. |
| 503 | \`restore_in_progress\` | A restore is replacing the data; \`Retry-After\` says when to ask again, \`restore\` shows its progress. Nothing of the request was stored. |
| 507 | \`insufficient_storage\` | The disk is full; nothing was stored. |
`.trim()
