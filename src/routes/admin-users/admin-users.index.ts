import { createUser, listUsers, setPassword, updateUser } from '../../core/accounts/users.js'
import { createRouter } from '../app-env.js'
import { createUserRoute, listUsersRoute, resetPasswordRoute, updateUserRoute } from './admin-users.routes.js'

export const adminUsersRouter = createRouter()
  .openapi(listUsersRoute, async (c) => c.json({ items: await listUsers(c.var.deps.database.db) }, 200))
  .openapi(createUserRoute, async (c) => c.json(await createUser(c.var.deps, c.req.valid('json')), 201))
  .openapi(updateUserRoute, async (c) =>
    c.json(await updateUser(c.var.deps, c.req.valid('param').id, c.req.valid('json')), 200),
  )
  .openapi(resetPasswordRoute, async (c) => {
    await setPassword(c.var.deps, c.req.valid('param').id, c.req.valid('json').password)
    return c.body(null, 204)
  })
