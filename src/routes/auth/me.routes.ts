import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { ApiKeyScopeSchema, passwordField, UserSchema } from '../account-schemas.js'
import { problemResponse } from '../problem.js'
import { retryAfterHeader } from '../response-docs.js'

const tags = ['Account']

export const getMeRoute = defineRoute(allow('user', 'any'), {
  method: 'get',
  path: '/api/v1/me',
  operationId: 'getMe',
  tags,
  summary: 'The signed-in user and session',
  description:
    'Any credential may ask, whatever its scopes: scripts and hooks use it to check their key works. The account is shown as the credential check read it: a change made through another replica shows within `VAULT_SESSION_RECHECK_MS`.',
  responses: {
    200: {
      description: 'Who the token belongs to.',
      content: {
        'application/json': {
          schema: z
            .object({
              user: UserSchema,
              session_id: z
                .string()
                .nullable()
                .openapi({ description: 'Null when the request presented an API key on its own.' }),
              api_key_id: z.string().nullable().openapi({
                description: 'Set when the request presented an API key, or its session was opened with one.',
              }),
              scopes: z.array(ApiKeyScopeSchema).openapi({
                description:
                  "What this credential may do: the API key's scopes, or `full` for a password sign-in. A slicer hook can check its key with this.",
                example: ['upload'],
              }),
              password_generated: z.boolean().openapi({
                description:
                  'True while the password is one the vault generated (the first superuser without `VAULT_ADMIN_PASSWORD`, or the CLI); false once the user chose one. The web UI asks to replace a generated password.',
              }),
            })
            .openapi('Me'),
        },
      },
    },
  },
})

export const changePasswordRoute = defineRoute(allow('user', 'full'), {
  method: 'post',
  path: '/api/v1/me/password',
  operationId: 'changeOwnPassword',
  tags,
  summary: 'Change your own password',
  description:
    'Needs the current password; wrong ones are throttled like failed sign-ins (429). Ends every other session of the account, including sessions opened with API keys; this one stays signed in, and the API keys themselves keep working.',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ current_password: passwordField, new_password: passwordField })
            .strict()
            .openapi('ChangePasswordRequest'),
        },
      },
    },
  },
  responses: {
    204: { description: 'Changed.' },
    403: problemResponse('The current password is wrong (`wrong_password`).'),
    429: problemResponse('Too many wrong passwords (`too_many_attempts`); see `Retry-After`.', retryAfterHeader),
    422: problemResponse('The new password is too short or too long.'),
  },
})
