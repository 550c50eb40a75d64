import { notFound } from '../../core/errors.js'
import { toFileRecord, toModelRecord } from '../../core/ingest/records.js'
import { createRouter } from '../app-env.js'
import { thumbnailResponse } from '../files/files.index.js'
import { presentFile, presentModel } from '../library-schemas.js'
import { getModelRoute, modelThumbnailRoute } from './models.routes.js'
import type { Deps } from '../../core/deps.js'

async function getModelRow(deps: Deps, id: string) {
  const row = await deps.database.db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`No model has the id ${id}.`)
  return row
}

export const modelsRouter = createRouter()
  .openapi(getModelRoute, async (c) => {
    const { db } = c.var.deps.database
    const model = await getModelRow(c.var.deps, c.req.valid('param').id)
    const files = await db.selectFrom('files').selectAll().where('model_id', '=', model.id).orderBy('created_at').orderBy('id').execute()
    return c.json({ ...presentModel(c, toModelRecord(model)), files: files.map((file) => presentFile(c, toFileRecord(file))) }, 200)
  })
  .openapi(modelThumbnailRoute, async (c) => {
    const model = await getModelRow(c.var.deps, c.req.valid('param').id)
    if (!model.thumbnail_sha256) throw notFound('This model has no thumbnail.')
    return thumbnailResponse(c, model.thumbnail_sha256, model.thumbnail_content_type)
  })
