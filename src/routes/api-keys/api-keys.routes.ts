import { z } from '@hono/zod-openapi'
import { defineRoute } from '../access.js'
import { IdParamSchema } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['API keys']

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ example: 'PrusaSlicer hook' }),
    prefix: z
      .string()
      .openapi({ description: 'The visible start of the key, to tell keys apart.', example: 'mvk_0123456789ab' }),
    created_at: z.string().openapi({ format: 'date-time', example: '2026-11-21T08:00:00.000Z' }),
    last_used_at: z.string().nullable().openapi({
      format: 'date-time',
      description: 'Last sign-in with this key.',
      example: '2026-11-21T09:00:00.000Z',
    }),
    revoked_at: z.string().nullable().openapi({ format: 'date-time', example: null }),
  })
  .openapi('ApiKey')

export const listApiKeysRoute = defineRoute('user', {
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

export const createApiKeyRoute = defineRoute('user', {
  method: 'post',
  path: '/api/v1/api-keys',
  operationId: 'createApiKey',
  tags,
  summary: 'Create an API key',
  description: [
    'For scripts and slicer hooks: they sign in with `{username, api_key}` instead of storing the account password.',
    'The answer carries the key value in `key`: **it is shown only this once**; only a hash is stored.',
  ].join(' '),
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.object({ name: z.string().min(1).max(100).openapi({ example: 'PrusaSlicer hook' }) }).strict(),
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
    422: problemResponse('Missing or too long name.'),
  },
})

export const revokeApiKeyRoute = defineRoute('user', {
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
