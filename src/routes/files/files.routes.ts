import { defineRoute } from '../access.js'
import { IdParamSchema } from '../common-schemas.js'
import { FileSchema } from '../library-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Files']
const binary = (contentType: string) => ({ [contentType]: { schema: { type: 'string' as const, format: 'binary' } } })

export const getFileRoute = defineRoute('user', {
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

export const downloadFileRoute = defineRoute('user', {
  method: 'get',
  path: '/api/v1/files/{id}/content',
  operationId: 'downloadFile',
  tags,
  summary: 'Download a stored file',
  description: [
    'Streams the bytes with `Content-Disposition: attachment` and the original file name.',
    'The `ETag` is the content hash: `If-None-Match` answers 304. A single `Range` (`bytes=0-1023`, `bytes=1024-`,',
    '`bytes=-512`) answers 206, honouring `If-Range`; an unsatisfiable range answers 416. Several ranges get the whole file.',
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The whole file.', content: binary('application/octet-stream') },
    206: { description: 'The requested range.', content: binary('application/octet-stream') },
    304: { description: 'Not modified (the ETag matched).' },
    404: problemResponse('No such file.'),
    416: { description: 'The range lies outside the file; `Content-Range: bytes */<size>`.' },
  },
})

export const fileThumbnailRoute = defineRoute('user', {
  method: 'get',
  path: '/api/v1/files/{id}/thumbnail',
  operationId: 'getFileThumbnail',
  tags,
  summary: "A file's thumbnail",
  description: 'The thumbnail embedded in the file (3MF, G-code) or rendered from its mesh on upload. PNG or JPEG.',
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The image.', content: { ...binary('image/png'), ...binary('image/jpeg') } },
    304: { description: 'Not modified.' },
    404: problemResponse('No such file, or it has no thumbnail.'),
  },
})
