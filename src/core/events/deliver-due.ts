import type { Selectable } from 'kysely'
import type { WebhookDeliveriesTable, WebhooksTable } from '../db/schema.js'
import type { EventsDeps } from './events-deps.js'
import {
  type AttemptResult,
  claimDueDeliveries,
  recordAttempt,
  toDelivery,
  type WebhookDelivery,
} from './webhook-deliveries.js'
import { type DeliveryRequestInput, deliveryRequest } from './webhook-requests.js'
import { getWebhookRow, type WebhookFormat } from './webhooks.js'

type DeliverDeps = Pick<EventsDeps, 'service' | 'database' | 'clock' | 'logger' | 'keys' | 'events'>

/** How long a claim holds: past any one attempt's timeout, so it lapses only when its process stopped. */
const leaseMs = 60_000

/**
 * One pass of the deliverer: claims the deliveries that are due (under a lease, so replicas never
 * send one twice), sends each, and records how it went; a failed one is due again after its
 * back-off. Answers how many were attempted. The Node entry runs it on an interval and when this
 * process publishes; tests call it directly, on an injected clock.
 */
export async function deliverDue(deps: DeliverDeps, options: { limit?: number } = {}): Promise<number> {
  const now = deps.clock.now()
  const owner = deps.service.instanceId
  const claimed = await claimDueDeliveries(deps.database.db, {
    owner,
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
    limit: options.limit ?? 20,
  })
  await Promise.all(
    claimed.map(async (delivery) => {
      const result = await sendQueued(deps, delivery)
      await recordAttempt(deps.database.db, { ...delivery, owner }, result, deps.clock.now())
      if (result.error) deps.logger.info('webhook delivery failed', { delivery_id: delivery.id, error: result.error })
    }),
  )
  return claimed.length
}

/** Sends a queued delivery's event to its webhook. */
async function sendQueued(deps: DeliverDeps, delivery: Selectable<WebhookDeliveriesTable>): Promise<AttemptResult> {
  const { db } = deps.database
  const webhook = await db.selectFrom('webhooks').selectAll().where('id', '=', delivery.webhook_id).executeTakeFirst()
  const event =
    delivery.event_id === null
      ? undefined
      : await db.selectFrom('events').selectAll().where('id', '=', delivery.event_id).executeTakeFirst()
  if (!webhook || !event) return { responseCode: null, error: 'the webhook or its event was deleted' }
  if (webhook.enabled !== 1) return { responseCode: null, error: 'the webhook is disabled' }
  return send(deps, webhook, {
    deliveryId: delivery.id,
    event: { ...event, id: Number(event.id), data: JSON.parse(event.data) as Record<string, unknown> },
  })
}

/** One attempt: the request in the webhook's format, within the delivery timeout, redirects not followed. */
async function send(
  deps: DeliverDeps,
  webhook: Selectable<WebhooksTable>,
  what: Pick<DeliveryRequestInput, 'deliveryId' | 'event'>,
): Promise<AttemptResult> {
  try {
    const secret = webhook.secret ? ((await deps.keys.current().credentials.open(webhook.secret)).secret ?? null) : null
    const { url, ...init } = await deliveryRequest({
      ...what,
      url: webhook.url,
      format: webhook.format as WebhookFormat,
      secret,
      now: deps.clock.now(),
    })
    const answer = await fetch(url, {
      ...init,
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.events.deliveryTimeoutMs),
    })
    await answer.body?.cancel()
    if (answer.status >= 200 && answer.status < 300) return { responseCode: answer.status, error: null }
    const redirect = answer.status >= 300 && answer.status < 400 ? ' (redirects are not followed)' : ''
    return { responseCode: answer.status, error: `the receiver answered ${answer.status}${redirect}` }
  } catch (error) {
    return { responseCode: null, error: failureText(error) }
  }
}

/** Why a request failed, in a line: fetch's own message hides the cause (`fetch failed`). */
function failureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  if (error.name === 'TimeoutError') return 'no answer within the delivery timeout'
  const cause = error.cause as { code?: string; message?: string } | undefined
  return cause?.code ?? cause?.message ?? error.message
}

/**
 * Sends a `webhook.test` event to the user's webhook at once, whether it is enabled or not, and
 * logs it among its deliveries; it is not retried. Answers the log entry.
 */
export async function sendTestDelivery(deps: DeliverDeps, userId: string, webhookId: string): Promise<WebhookDelivery> {
  const webhook = await getWebhookRow(deps, userId, webhookId)
  const owner = deps.service.instanceId
  const createdAt = deps.clock.now().toISOString()
  const row: Selectable<WebhookDeliveriesTable> = {
    id: crypto.randomUUID(),
    webhook_id: webhook.id,
    event_id: null,
    event_type: 'webhook.test',
    status: 'pending',
    attempts: 0,
    response_code: null,
    error: null,
    next_attempt_at: null,
    lease_owner: owner,
    lease_until: createdAt,
    created_at: createdAt,
    updated_at: createdAt,
  }
  const { db } = deps.database
  await db.insertInto('webhook_deliveries').values(row).execute()
  const event = {
    id: null,
    type: 'webhook.test',
    subject: `webhook:${webhook.id}`,
    data: { webhook_id: webhook.id, webhook_name: webhook.name },
    created_at: createdAt,
  }
  const result = await send(deps, webhook, { deliveryId: row.id, event })
  await recordAttempt(db, { ...row, owner }, result, deps.clock.now(), { retry: false })
  const recorded = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', row.id)
    .executeTakeFirstOrThrow()
  return toDelivery(recorded)
}
