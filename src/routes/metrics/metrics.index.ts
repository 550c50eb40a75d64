import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import { constantTimeEqual } from '../../core/accounts/secrets.js'
import { lastBackupHealth } from '../../core/backup/backup-health.js'
import { VaultError } from '../../core/errors.js'
import { checkComponent } from '../../core/health/health-report.js'
import type { Gauge } from '../../core/metrics/metrics.js'
import { listPrinterRows, printerStatus } from '../../core/printers/printers.js'
import type { AppDeps, AppEnv } from '../app-env.js'
import { componentTimeoutMs, requiredComponents } from '../health/health.index.js'
import { routeNotFound, vaultProblem } from '../problem.js'

/**
 * The route pattern that answered (`/api/v1/models/:id`), so a series per route rather than per
 * id; `(other)` for answers no route gave (the web UI's files, unknown paths).
 */
function routePattern(c: Context): string {
  const route = matchedRoutes(c).findLast((matched) => matched.method !== 'ALL')
  return route?.path ?? '(other)'
}

/** Records every request's route, status and time when metrics are on (`VAULT_METRICS_TOKEN`). */
export const requestMetrics: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { metrics } = c.var.deps
  if (!metrics) return next()
  const started = performance.now()
  try {
    await next()
  } finally {
    metrics.observeRequest(c.req.method, routePattern(c), c.res.status, (performance.now() - started) / 1000)
  }
}

/** The database's and the stores' health checks, each timed: whether it answers, and how fast. */
async function componentGauges(deps: AppDeps): Promise<Gauge[]> {
  const checks = await Promise.all(
    Object.entries(requiredComponents(deps)).map(async ([name, component]) => {
      const started = performance.now()
      const report = await checkComponent(component, componentTimeoutMs)
      return { name, up: report.status !== 'fail', seconds: (performance.now() - started) / 1000 }
    }),
  )
  return [
    {
      name: 'vault_component_up',
      help: 'Whether the database and the storage pass their health check at scrape time: 1 or 0.',
      samples: checks.map((check) => ({ labels: { component: check.name }, value: check.up ? 1 : 0 })),
    },
    {
      name: 'vault_component_check_seconds',
      help: "How long the database's and the storage's health check took at scrape time (their latency).",
      samples: checks.map((check) => ({ labels: { component: check.name }, value: check.seconds })),
    },
  ]
}

/** Uploads being received and being registered (read, stored and recorded), and those waiting for a turn. */
function ingestGauges(deps: AppDeps): Gauge[] {
  const stages = { receiving: deps.uploadBodies.load(), registering: deps.registrations.load() }
  const samples = (count: 'running' | 'waiting') =>
    Object.entries(stages).map(([stage, load]) => ({ labels: { stage }, value: load[count] }))
  return [
    { name: 'vault_ingest_in_progress', help: 'Uploads in each ingest stage now.', samples: samples('running') },
    {
      name: 'vault_ingest_queue_depth',
      help: 'Uploads waiting for a turn at each ingest stage now.',
      samples: samples('waiting'),
    },
  ]
}

async function scrapeGauges(c: Context<AppEnv>): Promise<Gauge[]> {
  const { deps } = c.var
  const rows = await listPrinterRows(deps)
  const states = await Promise.all(rows.map(async (row) => ({ row, status: await printerStatus(deps, row) })))
  const backup = await lastBackupHealth(deps).checkHealth()
  const lastBackupAt = backup.details?.last_backup_at
  const lastAttempt = backup.details?.last_attempt
  return [
    ...(await componentGauges(deps)),
    ...ingestGauges(deps),
    {
      name: 'vault_printer_state',
      help: 'Each registered printer: 1 for its current state (idle, printing, paused, error, offline, ...).',
      samples: states.map(({ row, status }) => ({ labels: { printer: row.name, state: status.state }, value: 1 })),
    },
    {
      name: 'vault_backup_last_success_timestamp_seconds',
      help: 'When the last good backup finished (Unix seconds); 0 when there is none.',
      samples: [{ value: typeof lastBackupAt === 'string' ? Date.parse(lastBackupAt) / 1000 : 0 }],
    },
    {
      name: 'vault_backup_age_seconds',
      help: 'Seconds since the last good backup finished; +Inf when there is none.',
      samples: [
        {
          value:
            typeof lastBackupAt === 'string'
              ? (deps.clock.now().getTime() - Date.parse(lastBackupAt)) / 1000
              : Number.POSITIVE_INFINITY,
        },
      ],
    },
    {
      name: 'vault_backup_last_attempt',
      help: 'How the most recent backup attempt ended: 1 for its outcome (complete, failed, interrupted, running).',
      samples: typeof lastAttempt === 'string' ? [{ labels: { outcome: lastAttempt }, value: 1 }] : [],
    },
  ]
}

/**
 * `GET /metrics` in the Prometheus text format, when `VAULT_METRICS_TOKEN` is set: a scraper
 * presents it as `Authorization: Bearer <token>` (Prometheus's `authorization` setting). Without
 * the setting the path does not exist (404). Not in the OpenAPI document: it is for the
 * operator's monitoring, not for API clients, and takes its own credential.
 */
export function registerMetrics(app: OpenAPIHono<AppEnv>): void {
  app.get('/metrics', async (c) => {
    const { metrics, metricsToken } = c.var.deps
    if (!metrics || !metricsToken) return routeNotFound(c)
    const presented = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1]
    if (!presented || !constantTimeEqual(presented, metricsToken)) {
      return vaultProblem(
        c,
        new VaultError(
          presented ? 'invalid_token' : 'missing_token',
          'The metrics need `Authorization: Bearer <VAULT_METRICS_TOKEN>`.',
          { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } },
        ),
      )
    }
    return c.text(metrics.render(await scrapeGauges(c)), 200, {
      'Content-Type': 'text/plain; version=0.0.4; charset=utf-8',
      'Cache-Control': 'no-store',
    })
  })
}
