import type { Context } from 'hono'
import type { Selectable } from 'kysely'
import type { FilesTable } from '../../core/db/schema.js'
import { issueDownloadLink } from '../../core/downloads/download-links.js'
import { slicerLinksFor } from '../../core/downloads/slicer-links.js'
import { VaultError } from '../../core/errors.js'
import { deleteFile, getFile, getFileRow, updateFile } from '../../core/library/files.js'
import { type AppEnv, createRouter } from '../app-env.js'
import { blobResponse } from '../blob-response.js'
import { presentFile } from '../library-schemas.js'
import { signedFilePath } from '../signed/signed-path.js'
import { vaultBaseUrl } from '../vault-url.js'
import {
  createDownloadLinkRoute,
  deleteFileRoute,
  downloadFileRoute,
  filePreviewRoute,
  fileThumbnailRoute,
  getFileRoute,
  updateFileRoute,
} from './files.routes.js'

export const filesRouter = createRouter()
  .openapi(getFileRoute, async (c) =>
    c.json(presentFile(c, await getFile(c.var.deps.database.db, c.req.valid('param').id)), 200),
  )
  .openapi(updateFileRoute, async (c) =>
    c.json(presentFile(c, await updateFile(c.var.deps, c.req.valid('param').id, c.req.valid('json'))), 200),
  )
  .openapi(deleteFileRoute, async (c) => {
    await deleteFile(c.var.deps, c.req.valid('param').id)
    return c.body(null, 204)
  })
  .openapi(downloadFileRoute, async (c) =>
    fileContentResponse(c, await getFileRow(c.var.deps.database.db, c.req.valid('param').id)),
  )
  .openapi(createDownloadLinkRoute, async (c) => {
    const link = await issueDownloadLink(c.var.deps, c.req.valid('param').id, c.var.principal.userId)
    const url = `${vaultBaseUrl(c)}${signedFilePath(link.fileId, link.token, link.fileName)}`
    return c.json(
      {
        url,
        expires_at: link.expiresAt.toISOString(),
        expires_in: c.var.deps.downloadLinkTtlSeconds,
        slicer_links: slicerLinksFor(link.format, url),
      },
      200,
    )
  })
  .openapi(fileThumbnailRoute, async (c) => {
    const file = await getFileRow(c.var.deps.database.db, c.req.valid('param').id)
    if (!file.thumbnail_sha256) throw new VaultError('not_found', 'This file has no thumbnail.')
    return thumbnailResponse(c, file.thumbnail_sha256, file.thumbnail_content_type)
  })
  .openapi(filePreviewRoute, async (c) => {
    const file = await getFileRow(c.var.deps.database.db, c.req.valid('param').id)
    if (!file.preview_sha256) throw new VaultError('not_found', 'This file has no preview mesh.')
    return thumbnailResponse(c, file.preview_sha256, 'model/stl')
  })

/** A stored file's bytes, as a download under its original name. */
export function fileContentResponse(c: Context<AppEnv>, file: Selectable<FilesTable>) {
  return blobResponse(c, {
    store: c.var.deps.blobs,
    key: file.sha256,
    size: file.size,
    contentType: file.content_type,
    downloadName: file.original_name,
  })
}

/** Thumbnails live in their own store; their size is read from it. */
export async function thumbnailResponse(c: Context<AppEnv>, sha256: string, contentType: string | null) {
  const { thumbnails } = c.var.deps
  const info = await thumbnails.stat(sha256)
  if (!info) throw new VaultError('not_found', 'The thumbnail is missing from storage.')
  return blobResponse(c, { store: thumbnails, key: sha256, size: info.size, contentType: contentType ?? 'image/png' })
}
