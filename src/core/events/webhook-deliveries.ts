import type { ExpressionBuilder, Kysely, Selectable } from 'kysely'
import type { Database, WebhookDeliveriesTable } from '../db/schema.js'

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

/** One entry of a webhook's delivery log. */
export interface WebhookDelivery {
  id: string
  webhook_id: string
  /** Null for a test send. */
  event_id: number | null
  event_type: string
  status: DeliveryStatus
  attempts: number
  /** The receiver's HTTP status at the last attempt; null when it did not answer. */
  response_code: number | null
  /** Why the last attempt failed; null when it succeeded or none was made. */
  error: string | null
  next_attempt_at: string | null
  created_at: string
  updated_at: string
}

export const toDelivery = (row: Selectable<WebhookDeliveriesTable>): WebhookDelivery => ({
  id: row.id,
  webhook_id: row.webhook_id,
  event_id: row.event_id === null ? null : Number(row.event_id),
  event_type: row.event_type,
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  response_code: row.response_code,
  error: row.error,
  next_attempt_at: row.next_attempt_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

/** Attempts after which a delivery is given up as failed. */
export const maxDeliveryAttempts = 8

/**
 * The wait before attempt n + 1 after n failed: 30 s, doubling; the eighth attempt comes about an
 * hour after the first, past which a notification (a bed to clear, a failed send) is stale news.
 */
export const retryDelayMs = (failedAttempts: number): number => 30_000 * 2 ** (failedAttempts - 1)

/**
 * Queues an event for every enabled webhook of an enabled user that wants its type, in the
 * transaction that publishes it.
 */
export async function queueDeliveries(
  trx: Kysely<Database>,
  event: { id: number; type: string; createdAt: string },
): Promise<void> {
  const webhooks = await trx
    .selectFrom('webhooks')
    .innerJoin('users', 'users.id', 'webhooks.user_id')
    .select(['webhooks.id', 'webhooks.event_types'])
    .where('webhooks.enabled', '=', 1)
    .where('users.disabled_at', 'is', null)
    .execute()
  const wanting = webhooks.filter((webhook) => (JSON.parse(webhook.event_types) as string[]).includes(event.type))
  if (wanting.length === 0) return
  await trx
    .insertInto('webhook_deliveries')
    .values(
      wanting.map((webhook) => ({
        id: crypto.randomUUID(),
        webhook_id: webhook.id,
        event_id: event.id,
        event_type: event.type,
        status: 'pending',
        next_attempt_at: event.createdAt,
        created_at: event.createdAt,
        updated_at: event.createdAt,
      })),
    )
    .execute()
}

/**
 * Takes up to `limit` pending deliveries that are due, oldest first, under a lease for `owner`
 * until `leaseUntil`: those no process holds, and those whose holder's lease ran out (it
 * stopped mid-send). One statement, its condition tested again on each row it updates, so two
 * processes never take the same delivery.
 */
export async function claimDueDeliveries(
  db: Kysely<Database>,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
): Promise<Selectable<WebhookDeliveriesTable>[]> {
  const claimable = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
    eb.and([
      eb('status', '=', 'pending'),
      eb('next_attempt_at', '<=', claim.now),
      eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', claim.now)]),
    ])
  return db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: claim.owner, lease_until: claim.leaseUntil })
    .where((eb) =>
      eb.and([
        eb(
          'id',
          'in',
          eb
            .selectFrom('webhook_deliveries')
            .select('id')
            .where(claimable)
            .orderBy('next_attempt_at')
            .orderBy('id')
            .limit(claim.limit),
        ),
        claimable(eb),
      ]),
    )
    .returningAll()
    .execute()
}

/** What one attempt came to: the receiver's status (if it answered) and why it failed (if it did). */
export interface AttemptResult {
  responseCode: number | null
  error: string | null
}

/**
 * Records an attempt on a delivery this owner holds: delivered, due again after the back-off, or
 * failed for good after `maxDeliveryAttempts` (at once when `retry` is false). The lease is
 * given back either way.
 */
export async function recordAttempt(
  db: Kysely<Database>,
  delivery: { id: string; owner: string; attempts: number },
  result: AttemptResult,
  now: Date,
  { retry = true } = {},
): Promise<void> {
  const attempts = delivery.attempts + 1
  const delivered = result.error === null
  const givenUp = !delivered && (!retry || attempts >= maxDeliveryAttempts)
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: delivered ? 'delivered' : givenUp ? 'failed' : 'pending',
      attempts,
      response_code: result.responseCode,
      error: result.error,
      next_attempt_at: delivered || givenUp ? null : new Date(now.getTime() + retryDelayMs(attempts)).toISOString(),
      lease_owner: null,
      lease_until: null,
      updated_at: now.toISOString(),
    })
    .where('id', '=', delivery.id)
    .where('lease_owner', '=', delivery.owner)
    .execute()
}

/** A webhook's delivery log, newest first. */
export async function listDeliveries(
  db: Kysely<Database>,
  webhookId: string,
  limit: number,
): Promise<WebhookDelivery[]> {
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
  return rows.map(toDelivery)
}
