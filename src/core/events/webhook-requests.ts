import { summarizeEvent } from './event-summary.js'
import type { VaultEvent } from './read-events.js'
import { signDelivery } from './webhook-signature.js'
import type { WebhookFormat } from './webhooks.js'

/** What one delivery sends: the event (a test send's has no id), to whom, in which format. */
export interface DeliveryRequestInput {
  deliveryId: string
  event: Omit<VaultEvent, 'id'> & { id: number | null }
  url: string
  format: WebhookFormat
  /** The generic format's secret, opened. */
  secret: string | null
  now: Date
}

/**
 * A header value fetch accepts: ASCII as it is, anything else as an RFC 2047 encoded word
 * (which ntfy decodes), since printer and file names may be in any script.
 */
function headerText(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value
  const bytes = new TextEncoder().encode(value)
  return `=?UTF-8?B?${btoa(String.fromCharCode(...bytes))}?=`
}

/**
 * The request one delivery makes. `generic`: the event as JSON, signed (see `signDelivery`).
 * `ntfy`: the event in words as the text body, POSTed to the topic URL with `Title`, `Tags` and
 * `Priority` headers. `discord`: a message with one embed, as Discord's webhooks take it.
 */
export async function deliveryRequest(input: DeliveryRequestInput): Promise<RequestInit & { url: string }> {
  const { event, deliveryId, url } = input
  const common = { 'User-Agent': 'model-vault', 'X-Vault-Event': event.type, 'X-Vault-Delivery': deliveryId }
  if (input.format === 'generic') {
    const body = JSON.stringify({
      id: event.id,
      type: event.type,
      subject: event.subject,
      created_at: event.created_at,
      data: event.data,
    })
    const timestamp = String(Math.floor(input.now.getTime() / 1000))
    return {
      url,
      method: 'POST',
      headers: {
        ...common,
        'Content-Type': 'application/json',
        'X-Vault-Timestamp': timestamp,
        ...(input.secret ? { 'X-Vault-Signature': await signDelivery(input.secret, timestamp, body) } : {}),
      },
      body,
    }
  }
  const summary = summarizeEvent(event)
  if (input.format === 'ntfy') {
    return {
      url,
      method: 'POST',
      headers: {
        ...common,
        'Content-Type': 'text/plain; charset=utf-8',
        Title: headerText(summary.title),
        Priority: summary.urgent ? '4' : '3',
        ...(summary.tags.length > 0 ? { Tags: summary.tags.join(',') } : {}),
      },
      body: summary.message,
    }
  }
  return {
    url,
    method: 'POST',
    headers: { ...common, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      content: summary.title,
      embeds: [
        {
          title: summary.title,
          description: summary.message,
          // Discord's colours: red for what needs someone, blurple otherwise.
          color: summary.urgent ? 0xed4245 : 0x5865f2,
          timestamp: event.created_at,
          footer: { text: event.type },
        },
      ],
    }),
  }
}
