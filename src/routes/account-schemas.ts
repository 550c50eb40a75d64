import { z } from '@hono/zod-openapi'
import { apiKeyScopes } from '../core/accounts/api-key-scopes.js'
import { roles } from '../core/accounts/roles.js'

export const RoleSchema = z
  .enum(roles)
  .openapi({ description: '`user` < `admin` < `superuser`; each includes the one before.' })

export const UserSchema = z
  .object({
    id: z.string().openapi({ example: '3f1c2a9e-7d4b-4e8a-9c1f-5b6d7e8f9a0b' }),
    username: z.string().openapi({ example: 'alice' }),
    role: RoleSchema,
    disabled: z
      .boolean()
      .openapi({ description: 'A disabled user cannot sign in; their sessions ended when they were disabled.' }),
    created_at: z.string().openapi({ format: 'date-time', example: '2026-11-21T08:00:00.000Z' }),
    updated_at: z.string().openapi({ format: 'date-time', example: '2026-11-21T08:00:00.000Z' }),
  })
  .openapi('User')

export const usernameField = z.string().min(1).max(64).openapi({ example: 'alice' })
export const passwordField = z
  .string()
  .min(1)
  .max(1024)
  .openapi({ format: 'password', description: 'At least 12 characters.' })

export const ApiKeyScopeSchema = z.enum(apiKeyScopes).openapi('ApiKeyScope', {
  description: [
    '`read`: every GET the role allows, but backups, API keys and accounts.',
    '`upload`: ingest files (`POST /api/v1/ingest`, `PUT /api/v1/ingest/{filename}`), what a slicer hook needs.',
    '`print`: read printers and dispatches, send to a printer, confirm a bed clear.',
    '`manage`: change the library: models, collections and presets, edits and deletes.',
    '`full`: everything the role allows, including backups, restores, API keys, printer setup, the password and user administration.',
    'Every key may read `GET /api/v1/me` and sign out.',
  ].join(' '),
})

/** An API key as listings show it: never its value. */
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
    scopes: z.array(ApiKeyScopeSchema).openapi({ description: 'What the key may be used for.', example: ['upload'] }),
    expires_at: z.string().nullable().openapi({
      format: 'date-time',
      description: 'When the key stops working; null: never.',
      example: null,
    }),
  })
  .openapi('ApiKey')
