/**
 * Domain errors. Every code the vault answers with is declared once in `errorCatalogue`, with
 * its HTTP status and title; core code throws a `VaultError` naming its code, and the root app's
 * error handler turns it into an RFC 9457 `application/problem+json` answer. `code` is the
 * stable, machine-readable name clients branch on (the OpenAPI document lists the catalogue as
 * the enum of `Problem.code`); `title` and `detail` are for people.
 */
export interface FieldError {
  /** Where the problem is, e.g. `body.username` or `query.limit`. */
  path: string
  message: string
}

/** The HTTP statuses the vault answers errors with, each with the title its problems carry. */
const answer = {
  badRequest: { status: 400, title: 'Bad Request' },
  /** A 4xx of the framework's that no entry names; its answer keeps the framework's status. */
  clientError: { status: 400, title: 'Client Error' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  forbidden: { status: 403, title: 'Forbidden' },
  notFound: { status: 404, title: 'Not Found' },
  methodNotAllowed: { status: 405, title: 'Method Not Allowed' },
  conflict: { status: 409, title: 'Conflict' },
  lengthRequired: { status: 411, title: 'Length Required' },
  contentTooLarge: { status: 413, title: 'Content Too Large' },
  unsupportedMediaType: { status: 415, title: 'Unsupported Media Type' },
  rangeNotSatisfiable: { status: 416, title: 'Range Not Satisfiable' },
  unprocessable: { status: 422, title: 'Unprocessable Content' },
  tooManyRequests: { status: 429, title: 'Too Many Requests' },
  internal: { status: 500, title: 'Internal Server Error' },
  notImplemented: { status: 501, title: 'Not Implemented' },
  badGateway: { status: 502, title: 'Bad Gateway' },
  unavailable: { status: 503, title: 'Service Unavailable' },
  insufficientStorage: { status: 507, title: 'Insufficient Storage' },
} as const

/**
 * Every error code, with its status and title. To add one: a line here (the OpenAPI enum and the
 * web UI's type follow), then `new VaultError('the_code', detail)` where it happens.
 */
export const errorCatalogue = {
  // The request itself
  bad_request: answer.badRequest,
  client_error: answer.clientError,
  malformed_json: answer.badRequest,
  malformed_multipart: answer.badRequest,
  invalid_cursor: answer.badRequest,
  /** The client closed the connection before its body was complete; nothing was kept. */
  upload_aborted: answer.badRequest,
  method_not_allowed: answer.methodNotAllowed,
  length_required: answer.lengthRequired,
  payload_too_large: answer.contentTooLarge,
  unsupported_media_type: answer.unsupportedMediaType,
  range_not_satisfiable: answer.rangeNotSatisfiable,
  validation_failed: answer.unprocessable,
  // Credentials and permissions
  unauthorized: answer.unauthorized,
  missing_token: answer.unauthorized,
  invalid_token: answer.unauthorized,
  invalid_credentials: answer.unauthorized,
  invalid_refresh_token: answer.unauthorized,
  refresh_token_reused: answer.unauthorized,
  forbidden: answer.forbidden,
  insufficient_role: answer.forbidden,
  insufficient_scope: answer.forbidden,
  wrong_password: answer.forbidden,
  download_link_expired: answer.forbidden,
  download_link_invalid: answer.forbidden,
  download_link_other_file: answer.forbidden,
  download_link_other_model: answer.forbidden,
  download_link_revoked: answer.forbidden,
  too_many_attempts: answer.tooManyRequests,
  no_session: answer.conflict,
  // Records
  not_found: answer.notFound,
  name_taken: answer.conflict,
  username_taken: answer.conflict,
  api_key_name_taken: answer.conflict,
  collection_name_taken: answer.conflict,
  collection_has_children: answer.conflict,
  last_superuser: answer.conflict,
  // Uploads and files
  content_deleted: answer.conflict,
  unsafe_file: answer.unprocessable,
  unreadable_archive: answer.unprocessable,
  unsupported_preset_file: answer.unprocessable,
  preset_out_of_range: answer.unprocessable,
  insufficient_storage: answer.insufficientStorage,
  // Printers: a send refused or let down midway
  not_gcode: answer.unprocessable,
  no_printer: answer.conflict,
  job_on_bed: answer.conflict,
  send_in_progress: answer.conflict,
  printer_not_ready: answer.conflict,
  not_ready_after_upload: answer.conflict,
  upload_failed: answer.badGateway,
  start_refused: answer.badGateway,
  not_confirmed: answer.badGateway,
  // Printers: a control of a running print (pause, resume, cancel) refused or let down
  control_unsupported: answer.conflict,
  control_not_allowed: answer.conflict,
  print_moved_on: answer.conflict,
  control_refused: answer.badGateway,
  // The print queue: a change the job's state does not allow (hold a printing job, cancel a finished one)
  job_state_conflict: answer.conflict,
  // Backups and maintenance
  maintenance_in_progress: answer.conflict,
  invalid_archive: answer.unprocessable,
  incompatible_archive: answer.unprocessable,
  backup_location_unreachable: answer.badGateway,
  restore_unfinished: answer.internal,
  restore_in_progress: answer.unavailable,
  // The server
  /** The database is still being opened and migrated. */
  starting: answer.unavailable,
  ui_not_built: answer.notFound,
  not_supported_on_this_runtime: answer.notImplemented,
  internal_error: answer.internal,
} as const

export type ErrorCode = keyof typeof errorCatalogue

/** The codes of the catalogue, as a non-empty list (for the OpenAPI enum). */
export const errorCodes = Object.keys(errorCatalogue) as [ErrorCode, ...ErrorCode[]]

/** The codes answered with HTTP status `S`. */
export type CodeOfStatus<S extends number> = {
  [C in ErrorCode]: (typeof errorCatalogue)[C]['status'] extends S ? C : never
}[ErrorCode]

interface VaultErrorDetails {
  fieldErrors?: FieldError[]
  /** Extra response headers (e.g. `Retry-After`, `WWW-Authenticate`). */
  headers?: Record<string, string>
  /** RFC 9457 extension members of the answer, e.g. a running restore's progress. */
  extensions?: Record<string, unknown>
}

export class VaultError extends Error {
  readonly status: number
  readonly title: string
  readonly fieldErrors?: FieldError[]
  readonly headers?: Record<string, string>
  readonly extensions?: Record<string, unknown>

  constructor(
    readonly code: ErrorCode,
    detail: string,
    details: VaultErrorDetails = {},
  ) {
    super(detail)
    this.name = 'VaultError'
    const { status, title } = errorCatalogue[code]
    this.status = status
    this.title = title
    this.fieldErrors = details.fieldErrors
    this.headers = details.headers
    this.extensions = details.extensions
  }
}

/** 422 `validation_failed`, naming each field that is wrong. */
export const unprocessable = (detail: string, fieldErrors: FieldError[]) =>
  new VaultError('validation_failed', detail, { fieldErrors })

/**
 * 401: no credentials, or credentials that are not (or no longer) valid. The challenge
 * header follows RFC 6750 so generic OAuth clients know to fetch a new token.
 */
export const unauthorized = (code: CodeOfStatus<401>, detail: string) =>
  new VaultError(code, detail, {
    headers: {
      'WWW-Authenticate':
        code === 'invalid_token' ? 'Bearer realm="model-vault", error="invalid_token"' : 'Bearer realm="model-vault"',
    },
  })

/** 400: the client closed the connection before its request body was complete; nothing was kept. */
export const uploadAborted = () =>
  new VaultError('upload_aborted', 'The client closed the connection before the request body was complete.')

export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new VaultError('too_many_attempts', detail, { headers: { 'Retry-After': String(retryAfterSeconds) } })
