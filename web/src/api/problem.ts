import type { components } from './schema'

/** An RFC 9457 problem as every API error carries it. */
export type Problem = components['schemas']['Problem']

/** A code of the vault's error catalogue: a misspelt one fails the type check. */
export type ProblemCode = Problem['code']

/** A failed API call: the HTTP status and, when the body was a problem, the problem. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? `The vault answered ${status}.`)
    this.name = 'ApiError'
  }
}

/** Whether `error` is a failed call whose problem has the code `code`. */
export const hasProblemCode = (error: unknown, code: ProblemCode): boolean =>
  error instanceof ApiError && error.problem?.code === code

const isProblem = (body: unknown): body is Problem =>
  typeof body === 'object' && body !== null && 'detail' in body && 'code' in body && 'status' in body

/**
 * The data of an openapi-fetch result, or an `ApiError` thrown for its error: what query and
 * mutation functions return, so TanStack Query sees failures as failures.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (!result.response.ok) {
    throw new ApiError(result.response.status, isProblem(result.error) ? result.error : undefined)
  }
  // A 204 has no body: its data is undefined, which is what such a call's type says.
  return result.data as T
}

/**
 * One readable sentence for any failure of a call: the problem's `detail` (which the API writes
 * for people), a network failure, or an answer that is not from the vault (a proxy's error page).
 */
export function problemMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.problem) return error.problem.detail
    return `The vault answered ${error.status} without an explanation; is a proxy in between? Try again later.`
  }
  if (error instanceof TypeError) return 'Cannot reach the vault. Check the connection and try again.'
  return error instanceof Error ? error.message : String(error)
}

/**
 * The per-field messages of a validation problem, keyed by field name (`body.username` →
 * `username`), for showing each next to its input.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !error.problem?.errors) return {}
  return Object.fromEntries(
    error.problem.errors.map(({ path, message }) => [path.replace(/^(body|query|path)\./, ''), message]),
  )
}
