import { analysisStatus, retryFailed } from '../../core/analysis/analysis-queue.js'
import { createRouter } from '../app-env.js'
import { analysisStatusRoute, retryAnalysisRoute } from './analysis.routes.js'

export const analysisRouter = createRouter()
  .openapi(analysisStatusRoute, async (c) => {
    const { deps } = c.var
    return c.json(await analysisStatus(deps.database.db, deps.clock.now()), 200)
  })
  .openapi(retryAnalysisRoute, async (c) => {
    const { deps } = c.var
    const { sha256 } = c.req.valid('json') ?? {}
    const retried = await retryFailed(deps.database.db, deps.clock.now().toISOString(), sha256)
    if (retried > 0) deps.analysis.wake()
    return c.json({ retried }, 200)
  })
