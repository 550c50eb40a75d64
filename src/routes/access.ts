import { createRoute, type RouteConfig } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { authenticateApiKey, looksLikeApiKey } from '../core/accounts/api-keys.js'
import { hasRole, type Role } from '../core/accounts/roles.js'
import { authenticate, type Principal } from '../core/accounts/sessions.js'
import { forbidden, unauthorized } from '../core/errors.js'
import type { AppEnv } from './app-env.js'
import { bodyTooLargeResponse, limitBody } from './body-limit.js'
import { inputResponses, refuseNul } from './input-responses.js'
import { problemResponse } from './problem.js'

/** Who may call a route: anyone, or a signed-in user with at least this role. */
export type Access = 'public' | Role

export const bearerSchemeName = 'bearerAuth'
export const apiKeySchemeName = 'apiKeyAuth'
/** Either credential will do: an access token or API key as a bearer, or an API key in `X-Api-Key`. */
export const credentialSchemes: Array<Record<string, string[]>> = [
  { [bearerSchemeName]: [] },
  { [apiKeySchemeName]: [] },
]

/**
 * The caller's credential: `Authorization: Bearer <access token or API key>`, or an API key in
 * `X-Api-Key` (as OctoPrint clients and slicers send it).
 */
function presentedCredential(c: Context<AppEnv>): string | undefined {
  const bearer = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(c.req.header('authorization') ?? '')?.[1]
  return bearer ?? (c.req.header('x-api-key')?.trim() || undefined)
}

/**
 * Establishes the caller from an access token (with its live session) or an API key, and puts
 * the caller on `c.var.principal`. Missing or invalid credentials are 401.
 */
export async function authenticateRequest(c: Context<AppEnv>): Promise<Principal> {
  const credential = presentedCredential(c)
  if (!credential) {
    throw unauthorized(
      'missing_token',
      'This endpoint needs an `Authorization: Bearer <access token or API key>` header (or the API key in `X-Api-Key`); get a token from POST /api/v1/auth/login.',
    )
  }
  const principal = looksLikeApiKey(credential)
    ? await authenticateApiKey(c.var.deps, credential)
    : await authenticate(c.var.deps, credential)
  c.set('principal', principal)
  return principal
}

/** `authenticateRequest`, then the caller's role: a valid credential without the role is 403. */
export function requireRole(role: Role): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = await authenticateRequest(c)
    if (!hasRole(principal.role, role)) {
      throw forbidden('insufficient_role', `This needs the ${role} role; your account has the ${principal.role} role.`)
    }
    await next()
  }
}

/** How a route's request body is bounded; by default at `VAULT_MAX_BODY_BYTES`. */
export interface BodyOptions {
  /** A fixed bound instead (preset files). */
  maxBodyBytes?: number
  /** The body is a file upload, which the handler bounds by `VAULT_MAX_UPLOAD_BYTES` as it streams. */
  upload?: true
}

/**
 * Every declared body but an upload's is bounded before it is read, with its 413 documented.
 * Protected routes check the caller first, so strangers get a 401 with their body unread.
 */
function boundBody(config: RouteConfig, options: BodyOptions) {
  return config.request?.body && !options.upload
    ? { middleware: [limitBody(options.maxBodyBytes), refuseNul], responses: { 413: bodyTooLargeResponse } }
    : { middleware: [], responses: {} }
}

/**
 * `createRoute` with access control that cannot be forgotten: `access` is required, and it
 * drives both the enforcement (middleware) and the documentation (security requirement,
 * `x-required-role`, 401/403 answers), so the two cannot drift apart. The answers its input can
 * cause (400, 415, 422: `inputResponses`) are documented from the request it declares.
 */
export function defineRoute<const R extends RouteConfig>(access: Access, config: R, options: BodyOptions = {}): R {
  const body = boundBody(config, options)
  if (access === 'public')
    return createRoute({
      ...config,
      security: [],
      middleware: body.middleware,
      responses: { ...inputResponses(config.request), ...body.responses, ...config.responses },
    }) as R
  const roleNote = `\n\nRequires an access token or API key of a user with the \`${access}\` role${access === 'user' ? ' (any signed-in user)' : ' or higher'}.`
  return createRoute({
    ...config,
    description: `${config.description ?? ''}${roleNote}`,
    security: credentialSchemes,
    'x-required-role': access,
    middleware: [requireRole(access), ...body.middleware],
    responses: {
      ...inputResponses(config.request),
      ...body.responses,
      ...config.responses,
      401: problemResponse(
        'No credential, or an access token that is invalid, expired or of an ended session, or an unknown or revoked API key.',
      ),
      ...(access === 'user'
        ? {}
        : { 403: problemResponse(`The token is valid but the user lacks the \`${access}\` role.`) }),
    },
  }) as R
}
