/** OpenAPI pieces of answers shared by the route files: the headers clients rely on, binary bodies. */
/** A documented response header: what it means and an example value. */
export const header = (description: string, example: string) => ({
  description,
  schema: { type: 'string' as const, example },
})

export const requestIdHeader = {
  'X-Request-Id': header(
    'Names this request in the server log and in a problem’s `request_id`; yours when you sent a valid one.',
    '3f0c6bf1-2b4e-4d5c-9a43-5c1f0e8f6a71',
  ),
}

export const locationHeader = { Location: header('The URL of the record made.', '/api/v1/backups/0193a4f2-…') }

export const retryAfterHeader = { 'Retry-After': header('Seconds to wait before trying again.', '30') }

/** The headers of every stored-bytes answer (downloads and thumbnails). */
export const storedBytesHeaders = {
  ETag: header('The content hash (SHA-256), quoted: send it back as `If-None-Match` or `If-Range`.', '"9f86d08…"'),
  'Accept-Ranges': header('Byte ranges are served.', 'bytes'),
  'Cache-Control': header('The bytes of an id never change.', 'private, max-age=31536000, immutable'),
}

export const contentDispositionHeader = {
  'Content-Disposition': header(
    'The original file name, ASCII-safe in `filename` and exact in `filename*` (RFC 6266).',
    `attachment; filename="Shape-Box.stl"; filename*=UTF-8''Shape-Box.stl`,
  ),
}

export const contentRangeHeader = (example: string) => ({
  'Content-Range': header('The bytes sent and the whole size (RFC 9110 §14.4).', example),
})

/** A binary body under each of `contentTypes`. */
export const binaryContent = (...contentTypes: string[]) =>
  Object.fromEntries(contentTypes.map((type) => [type, { schema: { type: 'string' as const, format: 'binary' } }]))

/** The 200 and 304 of a thumbnail (a file's or a model's). */
export const thumbnailAnswers = {
  200: {
    description: 'The image.',
    headers: storedBytesHeaders,
    content: binaryContent('image/png', 'image/jpeg', 'image/gif', 'image/webp'),
  },
  304: { description: 'Not modified (the ETag matched).', headers: storedBytesHeaders },
}

/** The headers of the library export. */
export const exportHeaders = {
  'Content-Disposition': header(
    'A file name with the date.',
    'attachment; filename="model-vault-models-2026-11-23.json"',
  ),
  'Cache-Control': header('Not stored by caches.', 'no-store'),
}
