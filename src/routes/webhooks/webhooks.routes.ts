import { z } from '@hono/zod-openapi'
import { eventTypes } from '../../core/events/event-types.js'
import { maxDeliveryAttempts } from '../../core/events/webhook-deliveries.js'
import { webhookFormats } from '../../core/events/webhooks.js'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Webhooks']
const access = allow('user', 'manage')
const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
})
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
})

const WebhookFormatSchema = z.enum(webhookFormats).openapi({
  description:
    '`generic`: the event as JSON, signed with HMAC-SHA256. `ntfy`: a notification POSTed to an ntfy topic URL (`https://ntfy.sh/<topic>`). `discord`: a message to a Discord webhook URL.',
})
const EventTypeSchema = z.enum(eventTypes)

const WebhookSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    url: z.string().openapi({ example: 'https://ntfy.sh/my-printers' }),
    format: WebhookFormatSchema,
    event_types: z.array(EventTypeSchema),
    enabled: z.boolean(),
    signed: z.boolean().openapi({ description: 'Deliveries carry `X-Vault-Signature` (the generic format).' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Webhook')

const secretField = z.string().openapi({
  description:
    "The generic format's signing secret, shown only in this answer (only a sealed copy is stored): verify each delivery's `X-Vault-Signature` with it.",
})

const WebhookInputSchema = z
  .object({
    name: z.string().min(1).max(100).openapi({ example: 'Phone' }),
    url: z.string().min(1).max(2000).openapi({
      description:
        'Where deliveries are POSTed: an http:// or https:// URL without user name or password. Addresses on your local network are allowed (ntfy often runs there).',
      example: 'https://ntfy.sh/my-printers',
    }),
    format: WebhookFormatSchema,
    event_types: z
      .array(EventTypeSchema)
      .min(1)
      .max(eventTypes.length * 2)
      .openapi({ description: 'The events to send.', example: ['printer.error', 'printer.bed_needs_clearing'] }),
    enabled: z.boolean(),
  })
  .strict()

const DeliverySchema = z
  .object({
    id: z.string(),
    webhook_id: z.string(),
    event_id: z.number().int().nullable().openapi({ description: 'Null for a test send.' }),
    event_type: z.string().openapi({ example: 'printer.error' }),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    response_code: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The receiver's HTTP status at the last attempt." }),
    error: z.string().nullable().openapi({ description: 'Why the last attempt failed.' }),
    next_attempt_at: z.string().nullable().openapi({ format: 'date-time' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('WebhookDelivery')

const notFound = problemResponse('You have no webhook with this id.')

export const listWebhooksRoute = defineRoute(access, {
  method: 'get',
  path: '/api/v1/webhooks',
  operationId: 'listWebhooks',
  tags,
  summary: 'Your webhooks',
  description:
    'The webhooks you registered, oldest first. Their URLs are shown (a Discord or ntfy URL is itself a secret: keep the answer to yourself); signing secrets never are.',
  responses: { 200: json('Your webhooks.', z.object({ items: z.array(WebhookSchema) })) },
})

export const createWebhookRoute = defineRoute(access, {
  method: 'post',
  path: '/api/v1/webhooks',
  operationId: 'createWebhook',
  tags,
  summary: 'Register a webhook',
  description: [
    'Events of the listed types are POSTed to the URL as they happen, in the chosen format. A delivery that fails',
    `(no answer within 10 s, or a status outside 2xx; redirects are not followed) is tried again after 30 s, the wait doubling each time, ${maxDeliveryAttempts} attempts in all (over about an hour).`,
    'For the generic format the answer carries the signing secret in `secret`, **shown only this once**.',
    'Not available on Cloudflare Workers (501).',
  ].join(' '),
  request: jsonBody(WebhookInputSchema.extend({ enabled: z.boolean().default(true) })),
  responses: {
    201: json('Registered.', WebhookSchema.extend({ secret: secretField.nullable() }).openapi('NewWebhook')),
    422: problemResponse(
      'A missing or invalid field, or a URL that is not http(s) or carries a user name or password.',
    ),
    501: problemResponse('This runtime does not deliver webhooks (Cloudflare Workers).'),
  },
})

export const getWebhookRoute = defineRoute(access, {
  method: 'get',
  path: '/api/v1/webhooks/{id}',
  operationId: 'getWebhook',
  tags,
  summary: 'One of your webhooks',
  request: { params: IdParamSchema },
  responses: { 200: json('The webhook.', WebhookSchema), 404: notFound },
})

export const updateWebhookRoute = defineRoute(access, {
  method: 'patch',
  path: '/api/v1/webhooks/{id}',
  operationId: 'updateWebhook',
  tags,
  summary: 'Change a webhook',
  description:
    'Changes the fields given. A webhook that becomes `generic` gets a new signing secret, in `secret` of this answer only.',
  request: { params: IdParamSchema, ...jsonBody(WebhookInputSchema.partial()) },
  responses: {
    200: json('The webhook as it now is.', WebhookSchema.extend({ secret: secretField.optional() })),
    404: notFound,
    422: problemResponse('An invalid field.'),
  },
})

export const deleteWebhookRoute = defineRoute(access, {
  method: 'delete',
  path: '/api/v1/webhooks/{id}',
  operationId: 'deleteWebhook',
  tags,
  summary: 'Delete a webhook',
  description: 'The webhook and its delivery log go; nothing more is sent to it.',
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Deleted.' }, 404: notFound },
})

export const testWebhookRoute = defineRoute(access, {
  method: 'post',
  path: '/api/v1/webhooks/{id}/test',
  operationId: 'testWebhook',
  tags,
  summary: 'Send a test event',
  description:
    'Sends a `webhook.test` event to the webhook now (enabled or not), once, and answers how it went; the attempt is also in its delivery log. A receiver that fails still answers 200 here: read `status` and `error`.',
  request: { params: IdParamSchema },
  responses: { 200: json('The delivery, delivered or failed.', DeliverySchema), 404: notFound },
})

export const listDeliveriesRoute = defineRoute(access, {
  method: 'get',
  path: '/api/v1/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tags,
  summary: "A webhook's delivery log",
  description:
    'Its deliveries, newest first (at most `limit`): pending ones with their next attempt, delivered and failed ones with the last answer or error. Kept as long as their events (a week).',
  request: {
    params: IdParamSchema,
    query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
  },
  responses: { 200: json('The log.', z.object({ items: z.array(DeliverySchema) })), 404: notFound },
})
