import type { Context } from 'hono'
import parseRange from 'range-parser'
import type { BlobStore } from '../core/blobs/blob-store.js'
import { VaultError } from '../core/errors.js'

export interface BlobResponseOptions {
  store: BlobStore
  key: string
  size: number
  contentType: string
  /** Set for downloads: the browser saves the file under this name. */
  downloadName?: string
}

/**
 * Streams a stored blob with the caching and resuming behaviour download managers expect:
 * a strong ETag (the content hash), `If-None-Match` → 304, a single `Range` → 206 (with
 * `If-Range`), an unsatisfiable range → a 416 problem, an invalid one (ignored) or several ranges →
 * the whole file.
 */
export async function blobResponse(c: Context, options: BlobResponseOptions): Promise<Response> {
  const etag = `"${options.key}"`
  const headers: Record<string, string> = {
    'Content-Type': options.contentType,
    ETag: etag,
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
    ...(options.downloadName ? { 'Content-Disposition': contentDisposition(options.downloadName) } : {}),
  }
  if (matchesEtag(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers)

  const rangeHeader = c.req.header('range')
  const ifRange = c.req.header('if-range')
  // RFC 9110 §14.2: a Range the server cannot read (`bytes=5-2`, another unit, garbage) is ignored.
  const ranges =
    rangeHeader && isValidByteRange(rangeHeader) && (!ifRange || ifRange === etag)
      ? parseRange(options.size, rangeHeader, { combine: true })
      : undefined
  if (ranges === -1) {
    throw new VaultError(
      'range_not_satisfiable',
      `No byte of the range ${rangeHeader} lies within the file's ${options.size} bytes.`,
      { headers: { 'Content-Range': `bytes */${options.size}`, 'Accept-Ranges': 'bytes', ETag: etag } },
    )
  }
  const range = Array.isArray(ranges) && ranges.length === 1 && ranges.type === 'bytes' ? ranges[0] : undefined
  const body = await options.store.get(options.key, range)
  if (!body) throw new VaultError('not_found', 'The file content is missing from storage.')
  if (range) {
    return c.body(body.stream, 206, {
      ...headers,
      'Content-Range': `bytes ${range.start}-${range.end}/${options.size}`,
      'Content-Length': String(range.end - range.start + 1),
    })
  }
  return c.body(body.stream, 200, { ...headers, 'Content-Length': String(options.size) })
}

/** `bytes=` and one or more `first-last`, `first-` or `-suffix` specs, none with last before first. */
function isValidByteRange(header: string): boolean {
  const match = /^bytes=(.+)$/i.exec(header.trim())
  const specs = match?.[1]?.split(',') ?? []
  return (
    specs.length > 0 &&
    specs.every((spec) => {
      const parts = /^\s*(?:(\d+)-(\d*)|-(\d+))\s*$/.exec(spec)
      return parts !== null && (parts[2] === undefined || parts[2] === '' || Number(parts[1]) <= Number(parts[2]))
    })
  )
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  return (
    header !== undefined &&
    (header.trim() === '*' || header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag))
  )
}

/** RFC 6266: an ASCII fallback plus the exact UTF-8 name for clients that read `filename*`. */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`)}`
}
