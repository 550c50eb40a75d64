import type { Selectable } from 'kysely'
import { randomToken } from '../accounts/secrets.js'
import type { WebhooksTable } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import type { EventType } from './event-types.js'
import type { EventsDeps } from './events-deps.js'
import { webhookUrlProblem } from './webhook-url.js'

export const webhookFormats = ['generic', 'ntfy', 'discord'] as const
export type WebhookFormat = (typeof webhookFormats)[number]

/** A webhook as its owner sees it: never its secret. */
export interface Webhook {
  id: string
  name: string
  url: string
  format: WebhookFormat
  event_types: EventType[]
  enabled: boolean
  /** Whether deliveries are signed (the generic format always is). */
  signed: boolean
  created_at: string
  updated_at: string
}

export interface WebhookInput {
  name: string
  url: string
  format: WebhookFormat
  event_types: EventType[]
  enabled: boolean
}

type WebhookRow = Selectable<WebhooksTable>
type WebhookDeps = Pick<EventsDeps, 'database' | 'clock' | 'keys'>

export const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  name: row.name,
  url: row.url,
  format: row.format as WebhookFormat,
  event_types: JSON.parse(row.event_types) as EventType[],
  enabled: row.enabled === 1,
  signed: row.secret !== null,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

/** The user's webhook `id`; 404 when it is someone else's or does not exist. */
export async function getWebhookRow(deps: Pick<EventsDeps, 'database'>, userId: string, id: string) {
  const row = await deps.database.db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst()
  if (!row) throw new VaultError('not_found', `You have no webhook with the id ${id}.`)
  return row
}

export async function listWebhooks(deps: Pick<EventsDeps, 'database'>, userId: string): Promise<Webhook[]> {
  const rows = await deps.database.db
    .selectFrom('webhooks')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.map(toWebhook)
}

function refuseBadUrl(url: string): void {
  const problem = webhookUrlProblem(url)
  if (problem) throw unprocessable(`The webhook URL ${problem}.`, [{ path: 'body.url', message: problem }])
}

/**
 * Registers a webhook for the user. The generic format signs every delivery with a secret made
 * here, which the answer carries once (as an API key's value); only its sealed form is stored.
 */
export async function createWebhook(
  deps: WebhookDeps,
  userId: string,
  input: WebhookInput,
): Promise<Webhook & { secret: string | null }> {
  refuseBadUrl(input.url)
  const secret = input.format === 'generic' ? randomToken(32) : null
  const now = deps.clock.now().toISOString()
  const row: WebhookRow = {
    id: crypto.randomUUID(),
    user_id: userId,
    name: input.name,
    url: input.url,
    format: input.format,
    secret: secret === null ? null : await deps.keys.current().credentials.seal({ secret }),
    event_types: JSON.stringify([...new Set(input.event_types)]),
    enabled: input.enabled ? 1 : 0,
    created_at: now,
    updated_at: now,
  }
  await deps.database.db.insertInto('webhooks').values(row).execute()
  return { ...toWebhook(row), secret }
}

/** Changes what is given; a webhook that becomes generic gets a secret, answered once. */
export async function updateWebhook(
  deps: WebhookDeps,
  userId: string,
  id: string,
  input: Partial<WebhookInput>,
): Promise<Webhook & { secret?: string }> {
  const current = await getWebhookRow(deps, userId, id)
  if (input.url !== undefined) refuseBadUrl(input.url)
  const changes: Partial<WebhookRow> = { updated_at: deps.clock.now().toISOString() }
  if (input.name !== undefined) changes.name = input.name
  if (input.url !== undefined) changes.url = input.url
  if (input.event_types !== undefined) changes.event_types = JSON.stringify([...new Set(input.event_types)])
  if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0
  let secret: string | undefined
  if (input.format !== undefined && input.format !== current.format) {
    changes.format = input.format
    secret = input.format === 'generic' ? randomToken(32) : undefined
    changes.secret = secret === undefined ? null : await deps.keys.current().credentials.seal({ secret })
  }
  await deps.database.db.updateTable('webhooks').set(changes).where('id', '=', id).execute()
  const updated = toWebhook({ ...current, ...changes })
  return secret === undefined ? updated : { ...updated, secret }
}

/** Deletes the webhook and its delivery log. */
export async function deleteWebhook(deps: Pick<EventsDeps, 'database'>, userId: string, id: string): Promise<void> {
  await getWebhookRow(deps, userId, id)
  await deps.database.db.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute()
  await deps.database.db.deleteFrom('webhooks').where('id', '=', id).execute()
}
