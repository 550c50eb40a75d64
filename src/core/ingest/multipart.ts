import { unprocessable, VaultError } from '../errors.js'

/**
 * Reading a `multipart/form-data` upload as a stream. Runtimes differ (busboy on Node), so
 * the parser is injected; the contract is what ingest relies on.
 */
export interface MultipartFile {
  /** As the client sent it; ingest cleans it before storing. */
  filename: string
  contentType: string
  /**
   * The file's bytes; errors with a 413 `VaultError` when the file exceeds the limit. It ends
   * only once the whole body has been read, and errors with the body's 4xx `VaultError` (400
   * `malformed_multipart` for a body cut short) instead, so a bad body stores nothing.
   */
  stream: ReadableStream<Uint8Array>
  /** Text fields sent before the file part (so they can be checked before storing). */
  fieldsBefore: Record<string, string>
}

export interface MultipartUpload {
  /** The part named `file`, as soon as its headers arrive; null when the body has none. */
  file: Promise<MultipartFile | null>
  /**
   * Every text field, once the whole body has been read. Rejects with a 4xx `VaultError` for
   * a malformed body, a second file, or a field over its limit.
   */
  fields: Promise<Record<string, string>>
}

export type ReadMultipart = (request: Request, limits: { maxFileBytes: number }) => MultipartUpload

/** 400: the body is not a readable multipart form (or was cut short). */
export const malformedMultipart = (detail: string) => new VaultError('malformed_multipart', detail)

/** 422: a readable form whose fields break the rules (a second file, too many or too long fields). */
export const badMultipartField = (detail: string) => unprocessable(detail, [{ path: 'body', message: detail }])

/**
 * Browsers, fetch and curl escape a part's file name as the WHATWG multipart/form-data encoding
 * says: `"` as `%22`, CR as `%0D`, LF as `%0A`, and nothing else; a parser that hands the escapes
 * over as they came would store `the "best" cube.stl` as `the %22best%22 cube.stl`.
 */
export const unescapeFormFileName = (name: string): string =>
  name.replace(/%(22|0D|0A)/gi, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)))
