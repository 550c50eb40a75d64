import { listTags } from '../../core/library/models.js'
import { createRouter } from '../app-env.js'
import { apiBase } from '../library-schemas.js'
import { listTagsRoute } from './tags.routes.js'

export const tagsRouter = createRouter().openapi(listTagsRoute, async (c) => {
  const base = apiBase(c)
  const items = (await listTags(c.var.deps.database.db)).map((tag) => ({
    ...tag,
    models_url: `${base}/models?tag=${encodeURIComponent(tag.name)}`,
  }))
  return c.json({ items }, 200)
})
