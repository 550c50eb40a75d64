import { createApiKey, listApiKeys, revokeApiKey } from '../../core/accounts/api-keys.js'
import { createRouter } from '../app-env.js'
import { createApiKeyRoute, listApiKeysRoute, revokeApiKeyRoute } from './api-keys.routes.js'

export const apiKeysRouter = createRouter()
  .openapi(listApiKeysRoute, async (c) =>
    c.json({ items: await listApiKeys(c.var.deps.database.db, c.var.principal.userId) }, 200),
  )
  .openapi(createApiKeyRoute, async (c) =>
    c.json(await createApiKey(c.var.deps, c.var.principal.userId, c.req.valid('json')), 201, {
      'Cache-Control': 'no-store',
    }),
  )
  .openapi(revokeApiKeyRoute, async (c) =>
    c.json(await revokeApiKey(c.var.deps, c.var.principal.userId, c.req.valid('param').id), 200),
  )
