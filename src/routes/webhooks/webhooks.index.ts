import { sendTestDelivery } from '../../core/events/deliver-due.js'
import { listDeliveries } from '../../core/events/webhook-deliveries.js'
import {
  createWebhook,
  deleteWebhook,
  getWebhookRow,
  listWebhooks,
  toWebhook,
  updateWebhook,
} from '../../core/events/webhooks.js'
import { createRouter } from '../app-env.js'
import {
  createWebhookRoute,
  deleteWebhookRoute,
  getWebhookRoute,
  listDeliveriesRoute,
  listWebhooksRoute,
  testWebhookRoute,
  updateWebhookRoute,
} from './webhooks.routes.js'

const noStore = { 'Cache-Control': 'no-store' }

export const webhooksRouter = createRouter()
  .openapi(listWebhooksRoute, async (c) =>
    c.json({ items: await listWebhooks(c.var.deps, c.var.principal.userId) }, 200),
  )
  .openapi(createWebhookRoute, async (c) =>
    c.json(await createWebhook(c.var.deps, c.var.principal.userId, c.req.valid('json')), 201, noStore),
  )
  .openapi(getWebhookRoute, async (c) =>
    c.json(toWebhook(await getWebhookRow(c.var.deps, c.var.principal.userId, c.req.valid('param').id)), 200),
  )
  .openapi(updateWebhookRoute, async (c) =>
    c.json(
      await updateWebhook(c.var.deps, c.var.principal.userId, c.req.valid('param').id, c.req.valid('json')),
      200,
      noStore,
    ),
  )
  .openapi(deleteWebhookRoute, async (c) => {
    await deleteWebhook(c.var.deps, c.var.principal.userId, c.req.valid('param').id)
    return c.body(null, 204)
  })
  .openapi(testWebhookRoute, async (c) =>
    c.json(await sendTestDelivery(c.var.deps, c.var.principal.userId, c.req.valid('param').id), 200),
  )
  .openapi(listDeliveriesRoute, async (c) => {
    const webhook = await getWebhookRow(c.var.deps, c.var.principal.userId, c.req.valid('param').id)
    return c.json({ items: await listDeliveries(c.var.deps.database.db, webhook.id, c.req.valid('query').limit) }, 200)
  })
