import { z } from '@hono/zod-openapi'
import { storedContentTypes } from '../../core/ingest/file-formats.js'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema, matching } from '../common-schemas.js'
import { FileSchema } from '../library-schemas.js'
import { folderField } from '../models/model-shape.routes.js'
import { problemResponse } from '../problem.js'
import {
  binaryContent,
  contentDispositionHeader,
  contentRangeHeader,
  storedBytesHeaders,
  thumbnailAnswers,
} from '../response-docs.js'
import { DownloadLinkSchema } from './download-link-schema.js'

const tags = ['Files']

export const getFileRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/files/{id}',
  operationId: 'getFile',
  tags,
  summary: 'A stored file and its extracted metadata',
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The file record.', content: { 'application/json': { schema: FileSchema } } },
    404: problemResponse('No such file.'),
  },
})

export const updateFileRoute = defineRoute(allow('user', 'manage'), {
  method: 'patch',
  path: '/api/v1/files/{id}',
  operationId: 'updateFile',
  tags,
  summary: 'Rename a file or move it to another folder of its model',
  description: [
    'Changes the fields given. `name` is the file name shown and downloaded (its format stays the one its content was',
    'read as); `folder` is where it sits in its model. To move it to another model: `POST /api/v1/models/{id}/files`.',
  ].join(' '),
  request: {
    params: IdParamSchema,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              name: matching(
                z.string().trim().min(1).max(255),
                /^[^/\\\p{Cc}]+$/u,
                'may not hold slashes or control characters',
              )
                .optional()
                .openapi({ example: 'Body (supported).stl' }),
              folder: folderField.optional(),
            })
            .strict()
            .refine((body) => body.name !== undefined || body.folder !== undefined, { message: 'give name or folder' })
            .openapi('UpdateFileRequest', { example: { folder: 'stls/supported' } }),
        },
      },
    },
  },
  responses: {
    200: { description: 'The file as changed.', content: { 'application/json': { schema: FileSchema } } },
    404: problemResponse('No such file.'),
    422: problemResponse('Empty change, unknown field, or a bad name or folder (`validation_failed`).'),
  },
})

export const deleteFileRoute = defineRoute(allow('user', 'manage'), {
  method: 'delete',
  path: '/api/v1/files/{id}',
  operationId: 'deleteFile',
  tags,
  summary: 'Remove a file from its model',
  description: [
    'Deletes the file. Its stored bytes and thumbnail are removed when no other file (of another model) holds them. The',
    'model stays, also when this was its last file; dispatch records keep their file name and lose the link.',
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
    204: { description: 'Deleted.' },
    404: problemResponse('No such file.'),
  },
})

/** How a stored file's bytes are served, by its own route and by a signed link alike. */
export const fileBytesDescription = [
  'Streams the bytes with `Content-Disposition: attachment` and the original file name.',
  'The `ETag` is the content hash: `If-None-Match` answers 304. A single `Range` (`bytes=0-1023`, `bytes=1024-`,',
  '`bytes=-512`) answers 206, honouring `If-Range`; a range wholly past the end answers 416. A `Range` that is not',
  'valid (`bytes=5-2`, another unit) is ignored, as RFC 9110 asks, and so are several ranges: the whole file, 200.',
  "The `Content-Type` is the stored format's: `model/stl`, `model/3mf`, `model/obj`, `text/x.gcode`, `model/step`; for",
  "images and documents the extension's (`image/png`, `image/jpeg`, `image/webp`, `image/gif`, `application/pdf`,",
  '`text/plain; charset=utf-8`, `text/markdown; charset=utf-8`; other documents `text/plain`), else',
  '`application/octet-stream`. Never HTML or SVG, and always with `X-Content-Type-Options: nosniff`, so nothing',
  'stored runs as a page of the vault.',
  'The bytes are those stored: G-code with the values of secret-bearing slicer settings (`printhost_apikey`,',
  '`printhost_password`, …) replaced by `[redacted]` on upload; every other format as it was uploaded, so a 3MF',
  'project carries whatever its settings hold.',
].join(' ')

/** The answers carrying a stored file's bytes (or saying why not), shared by every route that serves them. */
export const fileBytesResponses = {
  200: {
    description: 'The whole file.',
    headers: { ...storedBytesHeaders, ...contentDispositionHeader },
    content: binaryContent(...storedContentTypes),
  },
  206: {
    description: 'The requested range.',
    headers: { ...storedBytesHeaders, ...contentDispositionHeader, ...contentRangeHeader('bytes 0-1023/48213') },
    content: binaryContent(...storedContentTypes),
  },
  304: { description: 'Not modified (the ETag matched).', headers: storedBytesHeaders },
  416: problemResponse(
    'No byte of the range lies within the file (`range_not_satisfiable`); `Content-Range: bytes */<size>` gives the size.',
    contentRangeHeader('bytes */48213'),
  ),
}

export const downloadFileRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/files/{id}/content',
  operationId: 'downloadFile',
  tags,
  summary: 'Download a stored file',
  description: fileBytesDescription,
  request: { params: IdParamSchema },
  responses: { ...fileBytesResponses, 404: problemResponse('No such file.') },
})

export const createDownloadLinkRoute = defineRoute(allow('user', 'read'), {
  method: 'post',
  path: '/api/v1/files/{id}/download-link',
  operationId: 'createDownloadLink',
  tags,
  summary: 'A short-lived signed link to the file, wrapped for desktop slicers (open in slicer)',
  description: [
    'Signs a link that serves this one file to whoever holds it, without a bearer token, for 15 minutes',
    '(`VAULT_DOWNLOAD_LINK_TTL_S`): long enough for a slicer to start and download, short enough that a link left',
    'in a history or a log is soon worthless. Slicers fetch the URL themselves, outside the browser, so it is',
    "absolute (`VAULT_PUBLIC_URL` when set, else this request's origin) and ends in the file's name with its",
    "extension, from which slicers pick the format. The token is signed with the install's token keys for downloads",
    'only: it is refused as a bearer token, and an access token is refused in its place. Signing out does not',
    'revoke a link already made; it expires on its own. `slicer_links` wraps the URL for each desktop slicer that',
    "opens the file's format (Bambu Studio asks before opening a file from a site it does not know).",
    'PrusaSlicer is not offered: it downloads only from printables.com, thingiverse.com and cults3d.com.',
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The signed link.', content: { 'application/json': { schema: DownloadLinkSchema } } },
    404: problemResponse('No such file.'),
  },
})

export const fileThumbnailRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/files/{id}/thumbnail',
  operationId: 'getFileThumbnail',
  tags,
  summary: "A file's thumbnail",
  description: [
    'The thumbnail embedded in the file (3MF, G-code), rendered from its mesh on upload, or for an image the image itself',
    '(up to 512 KiB and 2048 pixels a side) or a copy scaled to 512 pixels (PNG, JPEG up to 24 megapixels). PNG or JPEG;',
    'GIF or WebP for a small image of that kind.',
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
    ...thumbnailAnswers,
    404: problemResponse('No such file, or it has no thumbnail.'),
  },
})

export const filePreviewRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/files/{id}/preview',
  operationId: 'getFilePreview',
  tags,
  summary: "A large mesh's preview",
  description: [
    'A simplified copy of a mesh of over 200,000 triangles (STL, 3MF, OBJ), made on upload by vertex clustering: at most',
    '100,000 triangles as binary STL, in millimetres, the same size and place as the file. The web UI shows it first and',
    "loads the whole file only when asked. The file's `preview_url` says whether it has one.",
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The preview mesh.', headers: storedBytesHeaders, content: binaryContent('model/stl') },
    304: { description: 'Not modified (the ETag matched).', headers: storedBytesHeaders },
    404: problemResponse('No such file, or it has no preview.'),
  },
})
