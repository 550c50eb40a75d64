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
