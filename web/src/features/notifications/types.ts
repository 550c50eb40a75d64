import type { components } from '../../api/schema'

export type Webhook = components['schemas']['Webhook']
export type WebhookDelivery = components['schemas']['WebhookDelivery']
export type WebhookFormat = Webhook['format']
export type EventType = Webhook['event_types'][number]

/** What the add and edit form hands back: a webhook's own fields. */
export type WebhookInput = Pick<Webhook, 'name' | 'url' | 'format' | 'event_types' | 'enabled'>
