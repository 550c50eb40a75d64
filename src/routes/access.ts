import { createRoute, type RouteConfig } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { type ApiKeyScope, holdsScope, type ScopeRequirement } from '../core/accounts/api-key-scopes.js'
import { authenticateApiKey, looksLikeApiKey } from '../core/accounts/api-keys.js'
import type { Principal } from '../core/accounts/principal.js'
import { hasRole, type Role } from '../core/accounts/roles.js'
import { authenticate } from '../core/accounts/sessions.js'
import { unauthorized, VaultError } from '../core/errors.js'
import { andThen, type MaybePromise } from '../core/runtime/maybe-async.js'
import type { AppEnv } from './app-env.js'
import { bodyTooLargeResponse, limitBody } from './body-limit.js'
import { inputResponses, refuseNul } from './input-responses.js'
import { problemResponse } from './problem.js'
import { restoreInProgressResponse } from './restore-in-progress.js'

/**
 * Who may call a route: anyone, or a signed-in user with at least `role` whose credential holds
 * one of `scopes` (an API key's scopes, or every scope for a password session). Both are
 * required, so no protected route can leave out either.
 */
export type Access = 'public' | { role: Role; scopes: ScopeRequirement }

/**
 * A protected route's access: `allow('user', 'read')`, `allow('user', 'read', 'print')` (either
 * will do), `allow('user', 'any')` (any scope). At least one scope, or `any`, must be named.
 */
export const allow = (role: Role, ...scopes: ['any'] | [ApiKeyScope, ...ApiKeyScope[]]): Access => ({
  role,
  scopes: scopes[0] === 'any' ? 'any' : scopes,
})

export const bearerSchemeName = 'bearerAuth'
export const apiKeySchemeName = 'apiKeyAuth'

/**
 * The OpenAPI security requirement: either credential will do (an access token or API key as a
 * bearer, or an API key in `X-Api-Key`), holding any one of the scopes. OpenAPI 3.1 lets
 * non-OAuth schemes list "role names" there; alternatives are separate requirement objects,
 * since one object's list means all of them. `full` holds every scope, as the schemes say.
 */
function securityRequirements(scopes: ScopeRequirement): Record<string, string[]>[] {
  const alternatives: string[][] = scopes === 'any' ? [[]] : scopes.map((scope) => [scope])
  return alternatives.flatMap((names): Record<string, string[]>[] => [
    { [bearerSchemeName]: names },
    { [apiKeySchemeName]: names },
  ])
}

/** The document's default: either credential, any scope. */
export const credentialSchemes = securityRequirements('any')

/**
 * The caller's credential: `Authorization: Bearer <access token or API key>`, or an API key in
 * `X-Api-Key` (as OctoPrint clients and slicers send it).
 */
function presentedCredential(c: Context<AppEnv>): string | undefined {
  const { headerAccess } = c.get('deps')
  const bearer = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(headerAccess.read(c, 'authorization') ?? '')?.[1]
  return bearer ?? (headerAccess.read(c, 'x-api-key')?.trim() || undefined)
}

/**
 * Establishes the caller from an access token (with its live session) or an API key, and puts
 * the caller on `c.var.principal`. Missing or invalid credentials are 401. A credential confirmed
 * within the recheck window is answered at once (see `andThen`).
 */
function authenticateRequest(c: Context<AppEnv>): MaybePromise<Principal> {
  const credential = presentedCredential(c)
  if (!credential) {
    throw unauthorized(
      'missing_token',
      'This endpoint needs an `Authorization: Bearer <access token or API key>` header (or the API key in `X-Api-Key`); get a token from POST /api/v1/auth/login.',
    )
  }
  // `c.get`, not `c.var`, on every request: Hono builds an object of all the variables on each `c.var` read.
  const deps = c.get('deps')
  const principal = looksLikeApiKey(credential) ? authenticateApiKey(deps, credential) : authenticate(deps, credential)
  return andThen(principal, (known) => {
    c.set('principal', known)
    return known
  })
}

/**
 * Whether the caller's credential is still good: the access token not expired, its session or API
 * key not revoked, the user not disabled. For answers that outlive their request (the event stream).
 */
export async function credentialStillValid(c: Context<AppEnv>): Promise<boolean> {
  try {
    await authenticateRequest(c)
    return true
  } catch {
    return false
  }
}

/**
 * `authenticateRequest`, then the caller's role, then the credential's scopes: a valid credential
 * without the role or the scope is 403, so a key acts with the intersection of both. (Hono
 * answers a throw here, at once or later, with the error's problem.)
 */
function requireAccess(role: Role, scopes: ScopeRequirement): MiddlewareHandler<AppEnv> {
  const admit = (principal: Principal) => {
    if (!hasRole(principal.role, role)) {
      throw new VaultError(
        'insufficient_role',
        `This needs the ${role} role; your account has the ${principal.role} role.`,
      )
    }
    if (scopes !== 'any') requireScope(principal, scopes)
  }
  return (c, next) =>
    Promise.resolve(
      andThen(authenticateRequest(c), (principal) => {
        admit(principal)
        return next()
      }),
    )
}

/** Refuses (403 `insufficient_scope`) a caller whose credential holds none of `scopes`, for checks a route makes itself. */
export function requireScope(principal: Principal, scopes: readonly [ApiKeyScope, ...ApiKeyScope[]]): void {
  if (!holdsScope(principal.scopes, scopes)) throw insufficientScope(scopes, principal.scopes)
}

const quoted = (scopes: readonly ApiKeyScope[], joiner: string) => scopes.map((scope) => `\`${scope}\``).join(joiner)

/** "the `read` or `print` scope (or `full`)": what a key needs for an operation. */
const neededScopes = (scopes: readonly ApiKeyScope[]) =>
  `the ${quoted(scopes, ' or ')} scope${scopes.includes('full') ? '' : ' (or `full`)'}`

/** 403 naming the scopes that would do and the ones the key has; the challenge says it as RFC 6750 does. */
function insufficientScope(needed: readonly ApiKeyScope[], held: readonly ApiKeyScope[]) {
  return new VaultError(
    'insufficient_scope',
    `This needs an API key with ${neededScopes(needed)}; the key used has ${quoted(held, ', ')}.`,
    {
      headers: {
        'WWW-Authenticate': `Bearer realm="model-vault", error="insufficient_scope", scope="${needed.join(' ')}"`,
      },
    },
  )
}

/** The sentence each protected operation's description ends with. */
function accessNote(role: Role, scopes: ScopeRequirement): string {
  const roleNote = `Requires an access token or API key of a user with the \`${role}\` role${role === 'user' ? ' (any signed-in user)' : ' or higher'}`
  return scopes === 'any'
    ? `${roleNote}; an API key may have any scope.`
    : `${roleNote}; an API key (or a session opened with one) needs ${neededScopes(scopes)}.`
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
 * The answers every operation of a kind can give whatever it does: under `/api/` the restore
 * gate's 503; an upload's 507 when the disk fills while its bytes are stored.
 */
function sharedAnswers(config: RouteConfig, options: BodyOptions) {
  return {
    ...(config.path.startsWith('/api/') ? { 503: restoreInProgressResponse() } : {}),
    ...(options.upload
      ? { 507: problemResponse('The disk (or the quota) is full (`insufficient_storage`); nothing was stored.') }
      : {}),
  }
}

/**
 * `createRoute` with access control that cannot be forgotten: `access` is required, and it
 * drives both the enforcement (middleware) and the documentation (security requirements with
 * the scopes, `x-required-role`, `x-required-scopes`, 401/403 answers), so the two cannot drift
 * apart. The answers its input can cause (400, 415, 422: `inputResponses`) are documented from
 * the request it declares.
 */
export function defineRoute<const R extends RouteConfig>(access: Access, config: R, options: BodyOptions = {}): R {
  const body = boundBody(config, options)
  if (access === 'public')
    return createRoute({
      ...config,
      security: [],
      middleware: body.middleware,
      responses: {
        ...inputResponses(config.request),
        ...body.responses,
        ...sharedAnswers(config, options),
        ...config.responses,
      },
    }) as R
  const { role, scopes } = access
  return createRoute({
    ...config,
    description: `${config.description ?? ''}\n\n${accessNote(role, scopes)}`,
    security: securityRequirements(scopes),
    'x-required-role': role,
    // Any one of these will do; empty: any scope.
    'x-required-scopes': scopes === 'any' ? [] : scopes,
    middleware: [requireAccess(role, scopes), ...body.middleware],
    responses: {
      ...inputResponses(config.request),
      ...body.responses,
      ...sharedAnswers(config, options),
      ...config.responses,
      401: problemResponse(
        'No credential, or an access token that is invalid, expired or of an ended session, or an unknown, revoked or expired API key.',
      ),
      ...forbiddenResponse(role, scopes),
    },
  }) as R
}

/** The documented 403, when the role or the scopes can refuse a valid credential. */
function forbiddenResponse(role: Role, scopes: ScopeRequirement) {
  const reasons = [
    ...(role === 'user' ? [] : [`the user lacks the \`${role}\` role (\`insufficient_role\`)`]),
    ...(scopes === 'any' ? [] : ['the API key lacks the scope (`insufficient_scope`)']),
  ]
  return reasons.length === 0 ? {} : { 403: problemResponse(`The credential is valid but ${reasons.join(', or ')}.`) }
}
