import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import {
  type ErrorCode,
  errorCatalogue,
  errorCodes,
  type FieldError,
  unprocessable,
  uploadAborted,
  VaultError,
} from '../core/errors.js'
import { requestIdHeader } from './response-docs.js'

/** RFC 9457 problem details, with a stable `code` and per-field `errors` for validation. */
export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: 'about:blank' }),
    title: z.string().openapi({ example: 'Unprocessable Content' }),
    status: z.number().int().openapi({ example: 422 }),
    detail: z.string().openapi({ example: 'The request does not match the schema.' }),
    code: z.enum(errorCodes).openapi({
      description:
        'Stable machine-readable error code, one of the error catalogue (`src/core/errors.ts`); each operation says which it can answer with.',
      example: 'validation_failed',
    }),
    instance: z.string().openapi({ description: 'The request path.', example: '/api/v1/auth/login' }),
    request_id: z.string().openapi({ description: 'Matches the `X-Request-Id` header and the server log.' }),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .openapi({ description: 'Per-field problems, for `validation_failed`.' }),
  })
  .openapi('Problem')

export type Problem = z.infer<typeof ProblemSchema>

/** An OpenAPI response entry for a problem answer, with its `X-Request-Id` and any further `headers`. */
export const problemResponse = (description: string, headers: Record<string, object> = {}) => ({
  description,
  headers: { ...requestIdHeader, ...headers },
  content: { 'application/problem+json': { schema: ProblemSchema } },
})

interface ProblemInput {
  status: number
  code: ErrorCode
  title: string
  detail: string
  errors?: FieldError[]
  /** RFC 9457 extension members, e.g. a running restore's progress. */
  extensions?: Record<string, unknown>
}

function problem(c: Context, input: ProblemInput, headers: Record<string, string> = {}): Response {
  const body: Problem = {
    type: 'about:blank',
    title: input.title,
    status: input.status,
    detail: input.detail,
    code: input.code,
    instance: c.req.path,
    request_id: c.get('requestId') ?? '',
    ...(input.errors ? { errors: input.errors } : {}),
    ...input.extensions,
  }
  return c.body(JSON.stringify(body), input.status as ContentfulStatusCode, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Cache-Control': 'no-store',
  })
}

/** The codes of Hono's HTTP exceptions, by status. */
const httpExceptionCodes: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
}

/** Hono's JSON validator throws this message; we give it its own code. */
const malformedJsonMessage = 'Malformed JSON in request body'

/** A domain error as its problem answer, with its status, code and headers. */
export const vaultProblem = (c: Context, error: VaultError) =>
  problem(
    c,
    {
      status: error.status,
      code: error.code,
      title: error.title,
      detail: error.message,
      errors: error.fieldErrors,
      extensions: error.extensions,
    },
    error.headers,
  )

/**
 * The one error handler, set on the root app only. Domain errors keep their status and code;
 * Hono's HTTP exceptions are mapped; anything else is a 500 whose detail is the request id,
 * never the error message or stack.
 */
export function handleError(error: Error, c: Context): Response {
  return closeIfBodyUnread(c, answerError(error, c))
}

/**
 * An error answer to a request refused before its body was read (or while reading it): the rest
 * of the body is still on the wire, so the connection cannot carry another request. Saying so
 * stops clients from reusing it and failing their next request with "other side closed".
 */
export function closeIfBodyUnread(c: Context, response: Response): Response {
  if (response.status === 413 || (c.req.raw.body !== null && !c.req.raw.bodyUsed))
    response.headers.set('Connection', 'close')
  return response
}

function answerError(error: Error, c: Context): Response {
  if (error instanceof VaultError) return vaultProblem(c, error)
  // The client went away while its body was being read (the read fails with whatever the runtime
  // says, Node's "aborted"): a client's doing, logged as its 400, not as a server error.
  if (c.req.raw.bodyUsed && c.req.raw.signal.aborted) return vaultProblem(c, uploadAborted())
  if (error instanceof HTTPException && error.status < 500) {
    if (error.message === malformedJsonMessage)
      return vaultProblem(c, new VaultError('malformed_json', 'The request body is not valid JSON.'))
    const code = httpExceptionCodes[error.status]
    if (code) return vaultProblem(c, new VaultError(code, error.message || errorCatalogue[code].title))
    // A status the catalogue does not name keeps the one Hono gave.
    const { title } = errorCatalogue.client_error
    return problem(c, { status: error.status, code: 'client_error', title, detail: error.message || title })
  }
  c.var.deps?.logger.error('unhandled error', {
    request_id: c.get('requestId'),
    error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
  })
  return vaultProblem(
    c,
    new VaultError(
      'internal_error',
      `The server failed to handle this request. Quote request id ${c.get('requestId') ?? 'unknown'} when reporting it.`,
    ),
  )
}

/** Hono's validation targets, named as API users know them. */
const targetNames: Record<string, string> = { json: 'body', form: 'body', param: 'path' }

/** A validation failure as one 422 with per-field errors, named as API users know the fields. */
export function validationFailure(error: z.ZodError, target: string): VaultError {
  const where = targetNames[target] ?? target
  const errors = error.issues.flatMap((issue) => {
    const at = (path: PropertyKey[]) => [where, ...path.map(String)].join('.')
    // An unknown field is reported at the field itself, so a form can highlight it.
    return issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: at([...issue.path, key]), message: 'is not a known field' }))
      : [{ path: at(issue.path), message: issue.message }]
  })
  return unprocessable(
    `The request does not match the schema: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    errors,
  )
}

/** zod-openapi's hook for every validation failure: one 422 problem with per-field errors. */
export function validationHook(
  result: { success: true } | { success: false; error: z.ZodError; target: string },
  c: Context,
): Response | undefined {
  if (result.success) return undefined
  return vaultProblem(c, validationFailure(result.error, result.target))
}

export function routeNotFound(c: Context): Response {
  return vaultProblem(c, new VaultError('not_found', `No route matches ${c.req.method} ${c.req.path}.`))
}

export function methodNotAllowedProblem(c: Context, methods: string[]): Response {
  return vaultProblem(
    c,
    new VaultError(
      'method_not_allowed',
      `${c.req.method} is not allowed on ${c.req.path}; allowed: ${methods.join(', ')}.`,
      {
        headers: { Allow: methods.join(', ') },
      },
    ),
  )
}
