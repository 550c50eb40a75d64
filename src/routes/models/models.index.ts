import { VaultError } from '../../core/errors.js'
import { applyToModels } from '../../core/library/bulk.js'
import { exportModels } from '../../core/library/export.js'
import { dismissMergeSuggestion, listMergeSuggestions } from '../../core/library/merge-suggestions.js'
import { listModels } from '../../core/library/model-page.js'
import { chooseModelCover, deleteModel, getModelDetail, getModelRow, updateModel } from '../../core/library/models.js'
import { addFilesToModel, mergeModels, splitModel } from '../../core/library/reshape.js'
import { libraryStats } from '../../core/library/stats.js'
import { createRouter } from '../app-env.js'
import { thumbnailResponse } from '../files/files.index.js'
import { bulkModelsRoute } from './bulk.routes.js'
import { presentDetail, summaryPresenter, toModelQuery } from './model-schemas.js'
import {
  addFilesRoute,
  dismissMergeSuggestionRoute,
  listMergeSuggestionsRoute,
  mergeModelsRoute,
  splitModelRoute,
} from './model-shape.routes.js'
import {
  chooseCoverRoute,
  deleteModelRoute,
  exportModelsRoute,
  getModelRoute,
  listModelsRoute,
  modelStatsRoute,
  modelThumbnailRoute,
  updateModelRoute,
} from './models.routes.js'

// The literal paths (`stats`, `export`) are registered before `/models/{id}`, which would take them as ids.
export const modelsRouter = createRouter()
  .openapi(modelStatsRoute, async (c) => c.json(await libraryStats(c.var.deps.database.db), 200))
  .openapi(listMergeSuggestionsRoute, async (c) =>
    c.json(await listMergeSuggestions(c.var.deps.database.db, c.req.valid('query').limit), 200),
  )
  .openapi(dismissMergeSuggestionRoute, async (c) => {
    const { deps } = c.var
    await dismissMergeSuggestion(deps.database.db, c.req.valid('json').model_ids, deps.clock.now().toISOString())
    return c.body(null, 204)
  })
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
  .openapi(bulkModelsRoute, async (c) => {
    const { model_ids: ids, filter, action, dry_run: dryRun } = c.req.valid('json')
    const selection = ids
      ? { ids }
      : {
          filters: toModelQuery({
            ...filter,
            tag: filter?.tag ?? [],
            file_format: filter?.file_format ?? [],
            include_descendants: filter?.include_descendants ?? false,
            sort: 'created',
          }).filters,
        }
    return c.json(await applyToModels(c.var.deps, selection, action, { dryRun }), 200)
  })
  .openapi(listModelsRoute, async (c) => {
    const { limit, cursor, ...params } = c.req.valid('query')
    const page = await listModels(c.var.deps, toModelQuery(params), { limit, cursor })
    return c.json({ items: page.items.map(summaryPresenter(c)), next_cursor: page.next_cursor }, 200)
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
  .openapi(chooseCoverRoute, async (c) => {
    const model = await chooseModelCover(c.var.deps, c.req.valid('param').id, c.req.valid('json').file_id)
    return c.json(presentDetail(c, model), 200)
  })
  .openapi(addFilesRoute, async (c) => {
    const { file_ids: fileIds, mode, folder } = c.req.valid('json')
    const model = await addFilesToModel(c.var.deps, c.req.valid('param').id, { fileIds, mode, folder })
    return c.json(presentDetail(c, model), 200)
  })
  .openapi(mergeModelsRoute, async (c) => {
    const model = await mergeModels(c.var.deps, c.req.valid('param').id, c.req.valid('json').model_ids)
    return c.json(presentDetail(c, model), 200)
  })
  .openapi(splitModelRoute, async (c) => {
    const { file_ids: fileIds, name } = c.req.valid('json')
    const model = await splitModel(c.var.deps, c.req.valid('param').id, {
      fileIds,
      name,
      createdBy: c.var.principal.userId,
    })
    return c.json(presentDetail(c, model), 201)
  })
  .openapi(modelThumbnailRoute, async (c) => {
    const model = await getModelRow(c.var.deps.database.db, c.req.valid('param').id)
    if (!model.thumbnail_sha256) throw new VaultError('not_found', 'This model has no thumbnail.')
    return thumbnailResponse(c, model.thumbnail_sha256, model.thumbnail_content_type)
  })
