import { createRoute, z } from '@hono/zod-openapi'
import { componentNames } from '../../core/health/health-report.js'

const StatusSchema = z.enum(['pass', 'warn', 'fail'])

const ComponentSchema = z
  .object({
    status: StatusSchema,
    required: z.boolean().openapi({ description: 'When a required component fails, the service answers 503.' }),
    reason: z
      .string()
      .optional()
      .openapi({ description: 'Why the component is not `pass` (or what it has not got yet).' }),
    details: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
      .optional()
      .openapi({ description: 'Non-secret facts: kind, schema version, latency, free space, counts.' }),
  })
  .openapi('HealthComponent')

export const HealthReportSchema = z
  .object({
    status: StatusSchema.openapi({
      description:
        '`pass`: every component passes. `warn`: something needs attention but the service works. `fail`: a required component is down.',
    }),
    service: z.object({
      name: z.string().openapi({ example: 'model-vault' }),
      version: z.string().openapi({ example: '0.1.0' }),
      instance_id: z.string().openapi({
        description: 'Random per process: tells replicas apart.',
        example: '0f8e7c1a-5b2d-4c3e-9a7f-2d1b6e4c8a90',
      }),
      started_at: z.string().openapi({ format: 'date-time', example: '2026-11-21T08:00:00.000Z' }),
    }),
    checked_at: z.string().openapi({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' }),
    components: z.object(
      Object.fromEntries(componentNames.map((name) => [name, ComponentSchema])) as Record<
        (typeof componentNames)[number],
        typeof ComponentSchema
      >,
    ),
  })
  .openapi('HealthReport')

/** The media type of the IETF draft "Health Check Response Format for HTTP APIs" (draft-inadarei-api-health-check). */
export const healthMediaType = 'application/health+json'

export const getHealth = createRoute({
  method: 'get',
  path: '/api/v1/health',
  operationId: 'getHealth',
  tags: ['Health'],
  summary: 'Liveness and per-component readiness',
  description: [
    'Needs no token. Reports who answered (service identity) and the readiness of the four components:',
    '`database` (required), `storage` (required: blob and thumbnail stores), `backup` (backup directory writable,',
    'bucket reachable when configured, age of the last good backup: `warn` when none, over 7 days old, or its bucket',
    'copy failed) and `printer-provider` (how many printers are online, naming the offline ones with the reason: unreachable, refused credentials, or a host not connected to its printer).',
    'Each component check has a 3 second budget, so the answer comes quickly even when a dependency hangs.',
    'Answers 200 while every required component works (overall `pass` or `warn`) and 503 when one fails,',
    'so it serves as a container health check. Reveals no secrets, hostnames or paths.',
    'The answer is `application/health+json` after the IETF draft "Health Check Response Format for HTTP APIs"',
    "(draft-inadarei-api-health-check): its top-level `status` and each component's are the draft's `pass`, `warn` and `fail`;",
    'it is plain JSON, so clients that read it as `application/json` keep working.',
  ].join(' '),
  security: [],
  responses: {
    200: { description: 'The service is ready.', content: { [healthMediaType]: { schema: HealthReportSchema } } },
    503: {
      description: 'A required component is down; the report names it.',
      content: { [healthMediaType]: { schema: HealthReportSchema } },
    },
  },
})

const probeText = (description: string) => ({
  description,
  content: { 'text/plain': { schema: z.string().openapi({ example: 'ok' }) } },
})

export const getLivez = createRoute({
  method: 'get',
  path: '/livez',
  operationId: 'getLivez',
  tags: ['Health'],
  summary: 'Liveness probe: the process answers',
  description:
    "Needs no token and checks nothing else: `ok` whenever this process's event loop serves requests, a restore included. For a liveness probe (Kubernetes `livenessProbe`, Docker `HEALTHCHECK`): restart the container when it stops answering. While the service starts (the port is bound before the database is ready) it answers 503.",
  security: [],
  responses: { 200: probeText('The process is alive: `ok`.') },
})

export const getReadyz = createRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'getReadyz',
  tags: ['Health'],
  summary: 'Readiness probe: the required components work',
  description:
    'Needs no token. `ok` when the required components (`database`, `storage`) pass their checks, as in `GET /api/v1/health`, and no restore is replacing the data; 503 otherwise, naming what is not ready (or problem `restore_in_progress` during a restore). For a readiness probe or a load balancer: send no traffic while it fails. Each check has a 3 second budget.',
  security: [],
  responses: {
    200: probeText('Ready: `ok`.'),
    503: probeText('Not ready: `not ready: <component>: <reason>`, one line per failing component.'),
  },
})
