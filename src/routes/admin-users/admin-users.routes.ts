import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { passwordField, RoleSchema, UserSchema, usernameField } from '../account-schemas.js'
import { IdParamSchema } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['User administration']
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
})

export const listUsersRoute = defineRoute(allow('superuser', 'full'), {
  method: 'get',
  path: '/api/v1/admin/users',
  operationId: 'listUsers',
  tags,
  summary: 'All users',
  responses: {
    200: {
      description: 'Every user, by username.',
      content: { 'application/json': { schema: z.object({ items: z.array(UserSchema) }) } },
    },
  },
})

export const createUserRoute = defineRoute(allow('superuser', 'full'), {
  method: 'post',
  path: '/api/v1/admin/users',
  operationId: 'createUser',
  tags,
  summary: 'Create a user',
  description:
    'Usernames are 1-64 letters, digits, `.`, `-` or `_`, unique regardless of case. Passwords need at least 12 characters.',
  request: jsonBody(
    z
      .object({ username: usernameField, password: passwordField, role: RoleSchema.default('user') })
      .strict()
      .openapi('CreateUserRequest'),
  ),
  responses: {
    201: { description: 'Created.', content: { 'application/json': { schema: UserSchema } } },
    409: problemResponse('The username is taken (`username_taken`).'),
    422: problemResponse('Bad username, password or role.'),
  },
})

export const updateUserRoute = defineRoute(allow('superuser', 'full'), {
  method: 'patch',
  path: '/api/v1/admin/users/{id}',
  operationId: 'updateUser',
  tags,
  summary: "Change a user's role, or disable or enable them",
  description:
    "Disabling ends all of the user's sessions at once. The last active superuser cannot be demoted or disabled (409 `last_superuser`).",
  request: {
    params: IdParamSchema,
    ...jsonBody(
      z
        .object({ role: RoleSchema.optional(), disabled: z.boolean().optional() })
        .strict()
        .refine((body) => body.role !== undefined || body.disabled !== undefined, {
          message: 'give role or disabled',
        })
        .openapi('UpdateUserRequest'),
    ),
  },
  responses: {
    200: { description: 'Updated.', content: { 'application/json': { schema: UserSchema } } },
    404: problemResponse('No such user.'),
    409: problemResponse('It would leave no active superuser (`last_superuser`).'),
    422: problemResponse('Empty or malformed change.'),
  },
})

export const resetPasswordRoute = defineRoute(allow('superuser', 'full'), {
  method: 'post',
  path: '/api/v1/admin/users/{id}/password',
  operationId: 'resetUserPassword',
  tags,
  summary: "Reset a user's password",
  description:
    'Sets a new password, ends every session of the user and clears their failed sign-in count. Their API keys keep working.',
  request: {
    params: IdParamSchema,
    ...jsonBody(z.object({ password: passwordField }).strict().openapi('ResetPasswordRequest')),
  },
  responses: {
    204: { description: 'Reset.' },
    404: problemResponse('No such user.'),
    422: problemResponse('The password is too short or too long.'),
  },
})
