import { collectGarbage } from '../../core/maintenance/collect-garbage.js'
import { createRouter } from '../app-env.js'
import { collectGarbageRoute } from './maintenance.routes.js'

export const maintenanceRouter = createRouter().openapi(collectGarbageRoute, async (c) => {
  const { dry_run } = c.req.valid('query')
  const { deps } = c.var
  return c.json(await collectGarbage(deps, { dryRun: dry_run === 'true', graceMs: deps.gcGraceMs }), 200)
})
