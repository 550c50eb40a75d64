import type { Context } from 'hono'
import {
  addToCollection,
  type CollectionRecord,
  createCollection,
  deleteCollection,
  getCollection,
  listCollections,
  removeFromCollection,
  updateCollection,
} from '../../core/library/collections.js'
import { createRouter } from '../app-env.js'
import { apiBase } from '../library-schemas.js'
import {
  addCollectionModelRoute,
  createCollectionRoute,
  deleteCollectionRoute,
  getCollectionRoute,
  listCollectionsRoute,
  removeCollectionModelRoute,
  updateCollectionRoute,
} from './collections.routes.js'

function present(c: Context, collection: CollectionRecord) {
  const base = apiBase(c)
  return {
    ...collection,
    url: `${base}/collections/${collection.id}`,
    models_url: `${base}/models?collection=${encodeURIComponent(collection.id)}`,
  }
}

export const collectionsRouter = createRouter()
  .openapi(listCollectionsRoute, async (c) =>
    c.json({ items: (await listCollections(c.var.deps.database.db)).map((item) => present(c, item)) }, 200),
  )
  .openapi(createCollectionRoute, async (c) => {
    const collection = present(c, await createCollection(c.var.deps.database.db, c.var.deps.clock, c.req.valid('json')))
    return c.json(collection, 201, { Location: collection.url })
  })
  .openapi(getCollectionRoute, async (c) =>
    c.json(present(c, await getCollection(c.var.deps.database.db, c.req.valid('param').id)), 200),
  )
  .openapi(updateCollectionRoute, async (c) => {
    const { deps } = c.var
    return c.json(
      present(c, await updateCollection(deps.database.db, deps.clock, c.req.valid('param').id, c.req.valid('json'))),
      200,
    )
  })
  .openapi(deleteCollectionRoute, async (c) => {
    await deleteCollection(c.var.deps.database.db, c.req.valid('param').id)
    return c.body(null, 204)
  })
  .openapi(addCollectionModelRoute, async (c) => {
    const { id, model_id: modelId } = c.req.valid('param')
    await addToCollection(c.var.deps.database.db, c.var.deps.clock, id, modelId)
    return c.body(null, 204)
  })
  .openapi(removeCollectionModelRoute, async (c) => {
    const { id, model_id: modelId } = c.req.valid('param')
    await removeFromCollection(c.var.deps.database.db, c.var.deps.clock, id, modelId)
    return c.body(null, 204)
  })
