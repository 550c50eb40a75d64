import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { ApiKeySchema, ApiKeyScopeSchema } from '../account-schemas.js'
import { IdParamSchema } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['API keys']

export const listApiKeysRoute = defineRoute(allow('user', 'full'), {
  method: 'get',
  path: '/api/v1/api-keys',
  operationId: 'listApiKeys',
  tags,
  summary: 'Your API keys',
  description:
    'Name, prefix and times of each of your keys, revoked ones included. Key values are never shown again after creation.',
  responses: {
    200: {
      description: 'Your keys, oldest first.',
      content: { 'application/json': { schema: z.object({ items: z.array(ApiKeySchema) }) } },
    },
  },
})

export const createApiKeyRoute = defineRoute(allow('user', 'full'), {
  method: 'post',
  path: '/api/v1/api-keys',
  operationId: 'createApiKey',
  tags,
  summary: 'Create an API key',
  description: [
    'For scripts and slicer hooks: they present the key on each request, or sign in with `{username, api_key}`, instead of storing the account password.',
    'The answer carries the key value in `key`: **it is shown only this once**; only a hash is stored.',
    'Give a key only the scopes its job needs: a slicer hook needs `upload` alone.',
  ].join(' '),
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              name: z.string().min(1).max(100).openapi({ example: 'PrusaSlicer hook' }),
              // Required, not defaulted to `full`: whoever makes a key says what it is for, so a
              // script that forgets cannot mint a key that may delete the library.
              scopes: z
                .array(ApiKeyScopeSchema)
                .min(1)
                .openapi({ description: 'What the key may be used for (at least one).', example: ['upload'] }),
              expires_at: z.iso.datetime({ offset: true }).nullable().default(null).openapi({
                description: 'When the key stops working (in the future); null or absent: never.',
                example: '2027-11-21T08:00:00Z',
              }),
            })
            .strict(),
        },
      },
    },
  },
  responses: {
    201: {
      description: 'Created. Copy `key` now.',
      content: {
        'application/json': {
          schema: ApiKeySchema.extend({
            key: z.string().openapi({ description: 'The key value, shown once.' }),
          }).openapi('NewApiKey'),
        },
      },
    },
    409: problemResponse('You already have an active key with this name (`api_key_name_taken`).'),
    422: problemResponse('Missing or too long name, no or an unknown scope, or an expiry that is not in the future.'),
  },
})

export const revokeApiKeyRoute = defineRoute(allow('user', 'full'), {
  method: 'delete',
  path: '/api/v1/api-keys/{id}',
  operationId: 'revokeApiKey',
  tags,
  summary: 'Revoke an API key',
  description:
    'The key can no longer sign in, and access tokens obtained with it stop working at once. The password is not affected. The key stays listed with `revoked_at`.',
  request: { params: IdParamSchema },
  responses: {
    200: {
      description: 'Revoked (revoking again is harmless).',
      content: { 'application/json': { schema: ApiKeySchema } },
    },
    404: problemResponse('You have no key with this id.'),
  },
})
