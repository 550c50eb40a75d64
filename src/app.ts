import { OpenAPIHono } from '@hono/zod-openapi'
import { methodNotAllowed } from 'hono/method-not-allowed'
import { createRestoreWatch } from './core/backup/restore-watch.js'
import { adminUsersRouter } from './routes/admin-users/admin-users.index.js'
import { analysisRouter } from './routes/analysis/analysis.index.js'
import { apiKeysRouter } from './routes/api-keys/api-keys.index.js'
import type { AppDeps, AppEnv } from './routes/app-env.js'
import { authRouter } from './routes/auth/auth.index.js'
import { backupsRouter } from './routes/backups/backups.index.js'
import { createRestoreGate } from './routes/backups/restore-gate.js'
import { collectionsRouter } from './routes/collections/collections.index.js'
import { crossOrigin } from './routes/cors.js'
import { registerDocs } from './routes/docs/docs.index.js'
import { eventsRouter } from './routes/events/events.index.js'
import { filesRouter } from './routes/files/files.index.js'
import { healthRouter } from './routes/health/health.index.js'
import { ingestRouter } from './routes/ingest/ingest.index.js'
import { maintenanceRouter } from './routes/maintenance/maintenance.index.js'
import { registerMetrics, requestMetrics } from './routes/metrics/metrics.index.js'
import { modelsRouter } from './routes/models/models.index.js'
import { octoPrintRouter } from './routes/octoprint/octoprint.index.js'
import { packagesRouter } from './routes/packages/packages.index.js'
import { presetsRouter } from './routes/presets/presets.index.js'
import { printRunsRouter } from './routes/print-runs/print-runs.index.js'
import { printersRouter } from './routes/printers/printers.index.js'
import { handleError, methodNotAllowedProblem, routeNotFound, validationHook } from './routes/problem.js'
import { queueRouter } from './routes/queue/queue.index.js'
import { rememberedTrieRouter } from './routes/remembered-router.js'
import { requestId } from './routes/request-id.js'
import { requestLog } from './routes/request-log.js'
import { securityHeaders } from './routes/security-headers.js'
import { signedRouter } from './routes/signed/signed.index.js'
import { tagsRouter } from './routes/tags/tags.index.js'
import { registerUi } from './routes/ui/ui.index.js'
import { refuseUnsupported } from './routes/unsupported.js'
import { webhooksRouter } from './routes/webhooks/webhooks.index.js'

/**
 * Builds the model-vault app from injected deps. The result is a plain Hono app: serve it
 * with any runtime's adapter, or mount it inside another Hono app with
 * `parent.route('/vault', createApp(deps))`.
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: rememberedTrieRouter() })
  const restoreGate = createRestoreGate(createRestoreWatch(deps))

  app.use((c, next) => {
    c.set('deps', deps)
    c.set('restoreGate', restoreGate)
    return next()
  })
  app.use(requestMetrics)
  app.use(requestId)
  app.use(requestLog)
  app.use(securityHeaders(deps.publicUrl))
  const corsHandler = crossOrigin(deps.corsOrigins ?? [])
  if (corsHandler) app.use(corsHandler)
  // Only the API (and its OctoPrint-compatible shim) reads and writes data: the web UI and the API reference keep loading during a
  // restore, so a browser opened meanwhile can show the restore's progress instead of a 503.
  app.use('/api/*', restoreGate.middleware)
  app.use('/octoprint/*', restoreGate.middleware)
  // Not ready while a restore replaces the data, in this process or another sharing the database.
  app.use('/readyz', restoreGate.middleware)
  // Before the routes, so an operation this runtime cannot do answers 501 before its handler reads anything.
  for (const operation of deps.unsupported ?? [])
    app.on(operation.methods, operation.path, refuseUnsupported(operation))

  app.route('/', healthRouter)
  app.route('/', authRouter)
  app.route('/', apiKeysRouter)
  app.route('/', adminUsersRouter)
  app.route('/', ingestRouter)
  app.route('/', filesRouter)
  app.route('/', analysisRouter)
  app.route('/', signedRouter)
  app.route('/', modelsRouter)
  app.route('/', packagesRouter)
  app.route('/', collectionsRouter)
  app.route('/', tagsRouter)
  app.route('/', backupsRouter)
  app.route('/', maintenanceRouter)
  app.route('/', printersRouter)
  app.route('/', printRunsRouter)
  app.route('/', queueRouter)
  app.route('/', presetsRouter)
  app.route('/', eventsRouter)
  app.route('/', webhooksRouter)
  app.route('/', octoPrintRouter)
  registerMetrics(app)
  registerDocs(app)

  // What no route answered: a 405 naming the methods the path has, else a 404 problem. Not a
  // middleware around every request (an async layer each request paid for): only requests no route
  // answers reach the 405 lookup. Unknown API paths answer here rather than in a parent app's
  // notFound, so a mounted vault still speaks problem+json; other paths after the UI, which answers
  // the GETs that reach it, and in `notFound`, so routes added to the app later are still reached.
  const notAllowed = methodNotAllowed({ app, onMethodNotAllowed: methodNotAllowedProblem })
  app.all('/api/*', notAllowed, routeNotFound)
  registerUi(app)
  app.notFound(async (c) => {
    await notAllowed(c, async () => {
      c.res = routeNotFound(c)
    })
    return c.res
  })
  app.onError(handleError)
  return app
}
