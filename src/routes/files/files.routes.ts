import { storedContentTypes } from '../../core/ingest/file-formats.js'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema } from '../common-schemas.js'
import { FileSchema } from '../library-schemas.js'
import { problemResponse } from '../problem.js'
import {
  binaryContent,
  contentDispositionHeader,
  contentRangeHeader,
  storedBytesHeaders,
  thumbnailAnswers,
} from '../response-docs.js'

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

export const downloadFileRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/files/{id}/content',
  operationId: 'downloadFile',
  tags,
  summary: 'Download a stored file',
  description: [
    'Streams the bytes with `Content-Disposition: attachment` and the original file name.',
    'The `ETag` is the content hash: `If-None-Match` answers 304. A single `Range` (`bytes=0-1023`, `bytes=1024-`,',
    '`bytes=-512`) answers 206, honouring `If-Range`; a range wholly past the end answers 416. A `Range` that is not',
    'valid (`bytes=5-2`, another unit) is ignored, as RFC 9110 asks, and so are several ranges: the whole file, 200.',
    "The `Content-Type` is the stored format's: `model/stl`, `model/3mf`, `model/obj`, `text/x.gcode`, `model/step`, else",
    '`application/octet-stream`.',
    'The bytes are those stored: G-code with the values of secret-bearing slicer settings (`printhost_apikey`,',
    '`printhost_password`, …) replaced by `[redacted]` on upload; every other format as it was uploaded, so a 3MF',
    'project carries whatever its settings hold.',
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
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
    404: problemResponse('No such file.'),
    416: problemResponse(
      'No byte of the range lies within the file (`range_not_satisfiable`); `Content-Range: bytes */<size>` gives the size.',
      contentRangeHeader('bytes */48213'),
    ),
  },
})

export const fileThumbnailRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/files/{id}/thumbnail',
  operationId: 'getFileThumbnail',
  tags,
  summary: "A file's thumbnail",
  description: 'The thumbnail embedded in the file (3MF, G-code) or rendered from its mesh on upload. PNG or JPEG.',
  request: { params: IdParamSchema },
  responses: {
    ...thumbnailAnswers,
    404: problemResponse('No such file, or it has no thumbnail.'),
  },
})
