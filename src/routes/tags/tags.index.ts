import type { Context } from 'hono'
import { deleteTag, listTags, renameTag, type TagRecord } from '../../core/library/tags.js'
import { createRouter } from '../app-env.js'
import { apiBase } from '../library-schemas.js'
import { deleteTagRoute, listTagsRoute, renameTagRoute } from './tags.routes.js'

const present = (c: Context, tag: TagRecord) => ({
  ...tag,
  models_url: `${apiBase(c)}/models?tag=${encodeURIComponent(tag.name)}`,
})

export const tagsRouter = createRouter()
  .openapi(listTagsRoute, async (c) => {
    const items = (await listTags(c.var.deps.database.db)).map((tag) => present(c, tag))
    return c.json({ items }, 200)
  })
  .openapi(renameTagRoute, async (c) => {
    const { tag, merged } = await renameTag(c.var.deps, c.req.valid('param').name, c.req.valid('json').name)
    return c.json({ ...present(c, tag), merged }, 200)
  })
  .openapi(deleteTagRoute, async (c) => {
    await deleteTag(c.var.deps, c.req.valid('param').name)
    return c.body(null, 204)
  })
