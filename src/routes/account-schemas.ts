import { z } from '@hono/zod-openapi'
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
