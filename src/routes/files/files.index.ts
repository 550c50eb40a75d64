import type { Context } from 'hono'
import type { Deps } from '../../core/deps.js'
import { notFound } from '../../core/errors.js'
import { toFileRecord } from '../../core/library/records.js'
import { type AppEnv, createRouter } from '../app-env.js'
import { blobResponse } from '../blob-response.js'
import { presentFile } from '../library-schemas.js'
import { downloadFileRoute, fileThumbnailRoute, getFileRoute } from './files.routes.js'

async function getFileRow(deps: Deps, id: string) {
  const row = await deps.database.db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw notFound(`No file has the id ${id}.`)
  return row
}

export const filesRouter = createRouter()
  .openapi(getFileRoute, async (c) =>
    c.json(presentFile(c, toFileRecord(await getFileRow(c.var.deps, c.req.valid('param').id))), 200),
  )
  .openapi(downloadFileRoute, async (c) => {
    const file = await getFileRow(c.var.deps, c.req.valid('param').id)
    return blobResponse(c, {
      store: c.var.deps.blobs,
      key: file.sha256,
      size: file.size,
      contentType: file.content_type,
      downloadName: file.original_name,
    })
  })
  .openapi(fileThumbnailRoute, async (c) => {
    const file = await getFileRow(c.var.deps, c.req.valid('param').id)
    if (!file.thumbnail_sha256) throw notFound('This file has no thumbnail.')
    return thumbnailResponse(c, file.thumbnail_sha256, file.thumbnail_content_type)
  })

/** Thumbnails live in their own store; their size is read from it. */
export async function thumbnailResponse(c: Context<AppEnv>, sha256: string, contentType: string | null) {
  const { thumbnails } = c.var.deps
  const info = await thumbnails.stat(sha256)
  if (!info) throw notFound('The thumbnail is missing from storage.')
  return blobResponse(c, { store: thumbnails, key: sha256, size: info.size, contentType: contentType ?? 'image/png' })
}
