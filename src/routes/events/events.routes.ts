import { z } from '@hono/zod-openapi'
import { eventTypeMeanings } from '../../core/events/event-types.js'
import { allow, defineRoute } from '../access.js'
import { matching } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

/** An event id as a client sends it back: digits, no more than a JavaScript integer holds exactly. */
const eventIdField = () =>
  matching(z.string().max(15), /^[0-9]{1,15}$/u, 'must be the id of an event: digits only').openapi({ example: '42' })

const typeList = Object.entries(eventTypeMeanings)
  .map(([type, meaning]) => `- \`${type}\`: ${meaning}`)
  .join('\n')

export const streamEventsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/events',
  operationId: 'streamEvents',
  tags: ['Events'],
  summary: 'Live events (server-sent events)',
  description: [
    'A `text/event-stream` (server-sent events, as `EventSource` and `fetch` read them) of what happens in the vault,',
    'for pages that follow printers without polling. It is not JSON: the answer stays open, and each event is a block',
    '`event: <type>`, `data: <the event as JSON: id, type, subject, data, created_at>`, `id: <event id>`, followed by a',
    'blank line. Lines starting with `:` are comments: one when the stream opens and one every 15 s without events, so',
    'proxies keep it open. The stream starts with `retry: 3000` (reconnect after 3 s). It ends when its credential',
    'stops being valid (an access token expires after 15 minutes; a session or key revoked, a user disabled), within',
    '15 s: reconnect with a fresh token and `Last-Event-ID`.',
    '',
    'Events are numbered in the order they happened, the same on every replica sharing one database. To resume after a',
    'dropped connection, send the last id seen in the `Last-Event-ID` header (`EventSource` does this itself) or, where',
    'a proxy drops that header, in the `last_event_id` query parameter: every event after it follows, then the live',
    'ones. Without either the stream begins with the next event. Events are kept for a week (the newest 10,000); a',
    'stream resuming after an event no longer kept starts with an `events.missed` event (its data: `after` and',
    '`first_kept`), after which a page should reload what it shows; after a restore, whose log numbers from its own',
    'past, one resuming after an id that log never reached gets `events.missed` with `replaced: true`.',
    '',
    'The types:',
    '',
    typeList,
    '',
    'Behind a reverse proxy, turn its response buffering off for this path (nginx: `proxy_buffering off`, which the vault',
    'also asks for with `X-Accel-Buffering: no`) and let reads idle longer than the heartbeat; see the docs on events.',
    'Not available on Cloudflare Workers (501).',
  ].join('\n'),
  request: {
    headers: z.object({
      'last-event-id': eventIdField().optional().openapi({ description: 'Resume after this event.' }),
    }),
    query: z.object({
      last_event_id: eventIdField()
        .optional()
        .openapi({ description: 'Resume after this event, where the header cannot be sent; the header wins.' }),
    }),
  },
  responses: {
    200: {
      description: 'The stream: events as they happen, until the client closes it.',
      content: {
        'text/event-stream': {
          schema: z.string().openapi({
            example:
              'retry: 3000\n\n: connected\n\nevent: printer.state_changed\ndata: {"id":42,"type":"printer.state_changed","subject":"printer:0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b","data":{"printer_id":"0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b","printer_name":"Voron","state":"printing","previous_state":"idle","reason":null,"ready":false},"created_at":"2026-11-29T08:00:00.000Z"}\nid: 42\n\n',
          }),
        },
      },
    },
    501: problemResponse('This runtime cannot hold the stream (Cloudflare Workers: `not_supported_on_this_runtime`).'),
  },
})
