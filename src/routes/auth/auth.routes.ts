import { z } from '@hono/zod-openapi'
import { accessTokenTtlSeconds, sessionIdleSeconds } from '../../core/accounts/accounts-deps.js'
import { allow, defineRoute } from '../access.js'
import { passwordField, UserSchema, usernameField } from '../account-schemas.js'
import { problemResponse } from '../problem.js'
import { retryAfterHeader } from '../response-docs.js'

const tags = ['Authentication']

export const LoginRequestSchema = z
  .object({
    username: usernameField,
    password: passwordField.optional(),
    api_key: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'An API key of this user (`mvk_…`).', example: 'mvk_0123456789ab_…' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    const given = [body.password, body.api_key].filter((value) => value !== undefined).length
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [given === 0 ? 'password' : 'api_key'],
        message: given === 0 ? 'give a password or an api_key' : 'give either a password or an api_key, not both',
      })
    }
  })
  .openapi('LoginRequest', { description: '`username` plus exactly one credential: `password` or `api_key`.' })

const TokenPairSchema = z.object({
  access_token: z.string().openapi({ description: 'A JWT for `Authorization: Bearer …`.' }),
  token_type: z.literal('Bearer'),
  expires_in: z
    .number()
    .int()
    .openapi({ description: 'Seconds the access token is valid.', example: accessTokenTtlSeconds }),
  refresh_token: z
    .string()
    .openapi({ description: 'Single use: exchange it at /auth/refresh for a new pair. Store it securely.' }),
  refresh_expires_in: z.number().int().openapi({
    description: 'Seconds until the session ends unless refreshed; every refresh extends it.',
    example: sessionIdleSeconds,
  }),
})

export const TokenResponseSchema = TokenPairSchema.extend({ user: UserSchema }).openapi('TokenResponse')
export const RefreshResponseSchema = TokenPairSchema.openapi('RefreshResponse')

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } }, required: true })

export const loginRoute = defineRoute('public', {
  method: 'post',
  path: '/api/v1/auth/login',
  operationId: 'login',
  tags,
  summary: 'Sign in with a password or an API key',
  description: [
    'Exchanges `{username, password}` (the UI) or `{username, api_key}` (scripts and slicer hooks) for a short-lived',
    'access token and a refresh token. Exactly one credential kind must be given. A wrong username, wrong password,',
    'foreign or revoked key and disabled account all answer the same 401.',
    '',
    'Repeated failures are throttled per account (from the 5th failure in 15 minutes) and per client address (from',
    'the 20th): 429 with `Retry-After` in seconds; the lock starts at 30 s and doubles with each further failure, up to',
    '15 minutes.',
  ].join('\n'),
  request: { body: json(LoginRequestSchema) },
  responses: {
    200: { description: 'Signed in.', content: { 'application/json': { schema: TokenResponseSchema } } },
    401: problemResponse('Wrong username or credential (`invalid_credentials`).'),
    422: problemResponse('Not exactly one credential kind, or malformed fields.'),
    429: problemResponse('Too many failed attempts (`too_many_attempts`); see `Retry-After`.', retryAfterHeader),
  },
})

export const refreshRoute = defineRoute('public', {
  method: 'post',
  path: '/api/v1/auth/refresh',
  operationId: 'refreshToken',
  tags,
  summary: 'Exchange a refresh token for a new token pair',
  description: [
    'Refresh tokens rotate: each one works once and the answer carries its successor. Presenting a used refresh token',
    'again revokes the whole session (its access tokens stop working at once) and answers 401 `refresh_token_reused`:',
    'it means a copy of the token exists somewhere. Clients that refresh from several places at once must serialise',
    'their refreshes.',
  ].join('\n'),
  request: {
    body: json(
      z
        .object({ refresh_token: z.string().min(1).max(200) })
        .strict()
        .openapi('RefreshRequest'),
    ),
  },
  responses: {
    200: {
      description: 'A new pair; the presented refresh token is now used up.',
      content: { 'application/json': { schema: RefreshResponseSchema } },
    },
    401: problemResponse('Unknown, expired or reused refresh token, or a session that has ended.'),
    422: problemResponse('Malformed body.'),
  },
})

export const logoutRoute = defineRoute(allow('user', 'any'), {
  method: 'post',
  path: '/api/v1/auth/logout',
  operationId: 'logout',
  tags,
  summary: 'End this session',
  description:
    'Revokes the session of the presented access token: its refresh token and every access token of the session stop working. An API key presented on its own has no session (409 `no_session`): revoke the key instead.',
  responses: {
    204: { description: 'Signed out.' },
    409: problemResponse('The credential is an API key, which has no session (`no_session`).'),
  },
})
