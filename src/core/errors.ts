/**
 * Domain errors. Core code throws these; the root app's error handler turns each into an
 * RFC 9457 `application/problem+json` answer. `code` is the stable, machine-readable name
 * clients branch on; `title` and `detail` are for people.
 */
export interface FieldError {
  /** Where the problem is, e.g. `body.username` or `query.limit`. */
  path: string
  message: string
}

export class VaultError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail: string,
    readonly fieldErrors?: FieldError[],
    /** Extra response headers (e.g. `Retry-After`, `Allow`). */
    readonly headers?: Record<string, string>,
    /** RFC 9457 extension members of the answer, e.g. a running restore's progress. */
    readonly extensions?: Record<string, unknown>,
  ) {
    super(detail)
    this.name = 'VaultError'
  }
}

export const notFound = (detail: string) => new VaultError(404, 'not_found', 'Not Found', detail)

export const conflict = (code: string, detail: string) => new VaultError(409, code, 'Conflict', detail)

export const unprocessable = (detail: string, fieldErrors: FieldError[]) =>
  new VaultError(422, 'validation_failed', 'Unprocessable Content', detail, fieldErrors)

/**
 * 401: no credentials, or credentials that are not (or no longer) valid. The challenge
 * header follows RFC 6750 so generic OAuth clients know to fetch a new token.
 */
export const unauthorized = (code: string, detail: string) =>
  new VaultError(401, code, 'Unauthorized', detail, undefined, {
    'WWW-Authenticate':
      code === 'invalid_token' ? 'Bearer realm="model-vault", error="invalid_token"' : 'Bearer realm="model-vault"',
  })

/** 400: the client closed the connection before its request body was complete; nothing was kept. */
export const uploadAborted = () =>
  new VaultError(
    400,
    'upload_aborted',
    'Bad Request',
    'The client closed the connection before the request body was complete.',
  )

export const forbidden = (code: string, detail: string) => new VaultError(403, code, 'Forbidden', detail)

export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new VaultError(429, 'too_many_attempts', 'Too Many Requests', detail, undefined, {
    'Retry-After': String(retryAfterSeconds),
  })

/** 507: the disk (or quota) is full; nothing was stored. */
export const insufficientStorage = (detail: string) =>
  new VaultError(507, 'insufficient_storage', 'Insufficient Storage', detail)

/**
 * 501: the runtime the vault runs on cannot do this at all (printers on a LAN seen from Cloudflare's
 * edge, backups without a disk); `detail` says why and what to do instead.
 */
export const notSupportedOnThisRuntime = (detail: string) =>
  new VaultError(501, 'not_supported_on_this_runtime', 'Not Implemented', detail)
