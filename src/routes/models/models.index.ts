import type { Deps } from '../../core/deps.js'
import { notFound } from '../../core/errors.js'
import { decodeCursor, encodeCursor } from '../../core/library/cursor.js'
import { exportModels } from '../../core/library/export.js'
import { fetchModelPage, queryScope } from '../../core/library/model-query.js'
import { deleteModel, getModelDetail, summarizeModels, updateModel } from '../../core/library/models.js'
import { libraryStats } from '../../core/library/stats.js'
import { createRouter } from '../app-env.js'
import { thumbnailResponse } from '../files/files.index.js'
import { presentDetail, presentSummary, toModelQuery } from './model-schemas.js'
import {
  deleteModelRoute,
  exportModelsRoute,
  getModelRoute,
  listModelsRoute,
  modelStatsRoute,
  modelThumbnailRoute,
  updateModelRoute,
} from './models.routes.js'

async function getModelRow(deps: Deps, id: string) {
  const row = await deps.database.db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`No model has the id ${id}.`)
  return row
}

// The literal paths (`stats`, `export`) are registered before `/models/{id}`, which would take them as ids.
export const modelsRouter = createRouter()
  .openapi(modelStatsRoute, async (c) => c.json(await libraryStats(c.var.deps.database.db), 200))
  .openapi(exportModelsRoute, async (c) => {
    const { deps } = c.var
    const { format, ...params } = c.req.valid('query')
    const exportedAt = deps.clock.now().toISOString()
    const stream = exportModels(deps.database, toModelQuery(params), format, {
      exportedAt,
      present: (model) => presentDetail(c, model),
    })
    return c.body(stream, 200, {
      'Content-Type': format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8; header=present',
      'Content-Disposition': `attachment; filename="model-vault-models-${exportedAt.slice(0, 10)}.${format}"`,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    })
  })
  .openapi(listModelsRoute, async (c) => {
    const { deps } = c.var
    const { limit, cursor, ...params } = c.req.valid('query')
    const query = toModelQuery(params)
    const secret = deps.keys.current().signingKeys.current.secret
    const scope = queryScope(query)
    const after = cursor === undefined ? undefined : await decodeCursor(secret, scope, cursor)
    const page = await fetchModelPage(deps.database, query, limit, after)
    const last = page.rows.at(-1)
    const items = (await summarizeModels(deps.database.db, page.rows)).map((model) => presentSummary(c, model))
    const nextCursor =
      page.more && last ? await encodeCursor(secret, scope, { value: last.sort_value, id: last.id }) : null
    return c.json({ items, next_cursor: nextCursor }, 200)
  })
  .openapi(getModelRoute, async (c) =>
    c.json(presentDetail(c, await getModelDetail(c.var.deps.database.db, c.req.valid('param').id)), 200),
  )
  .openapi(updateModelRoute, async (c) => {
    const model = await updateModel(c.var.deps, c.req.valid('param').id, c.req.valid('json'))
    return c.json(presentDetail(c, model), 200)
  })
  .openapi(deleteModelRoute, async (c) => {
    await deleteModel(c.var.deps, c.req.valid('param').id)
    return c.body(null, 204)
  })
  .openapi(modelThumbnailRoute, async (c) => {
    const model = await getModelRow(c.var.deps, c.req.valid('param').id)
    if (!model.thumbnail_sha256) throw notFound('This model has no thumbnail.')
    return thumbnailResponse(c, model.thumbnail_sha256, model.thumbnail_content_type)
  })
