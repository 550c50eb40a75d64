import { joinChunks } from '../../core/blobs/join-chunks.js'
import { VaultError } from '../../core/errors.js'
import {
  badMultipartField as badField,
  type MultipartFile,
  type MultipartUpload,
  malformedMultipart as malformed,
  type ReadMultipart,
  unescapeFormFileName,
} from '../../core/ingest/multipart.js'
import { payloadTooLarge } from '../../core/ingest/upload-limit.js'

/** The bounds busboy is given on Node, so both runtimes refuse the same forms. */
const limits = { fields: 20, fieldBytes: 64 * 1024, parts: 25, headerBytes: 16 * 1024, preambleBytes: 64 * 1024 }

const encoder = new TextEncoder()
const utf8 = new TextDecoder()

/**
 * A streaming `multipart/form-data` reader on web streams only, for runtimes without busboy
 * (Cloudflare Workers). Same contract as the Node adapter's: the file part is handed over as soon
 * as its headers arrive and its bytes flow with backpressure (the body is read only as fast as
 * the file is consumed), so memory stays at a chunk or two; `request.formData()` would hold the
 * whole upload in memory. So would `@remix-run/multipart-parser` (0.16), the web-streams parser
 * to reach for otherwise: it collects each part's chunks (`MultipartPart.content`) before handing
 * the part over, and a Worker has 128 MiB for all its requests; busboy needs Node streams.
 */
export const readMultipartWeb: ReadMultipart = (request, { maxFileBytes }) => {
  let resolveFile!: (file: MultipartFile | null) => void
  let rejectFile!: (error: unknown) => void
  const file = new Promise<MultipartFile | null>((resolve, reject) => {
    resolveFile = resolve
    rejectFile = reject
  })
  const fields = parseForm(request, maxFileBytes, resolveFile)
  fields.then(
    () => resolveFile(null),
    (error: unknown) => rejectFile(error),
  )
  // A caller that stops at the file must not see an unhandled rejection from the fields.
  fields.catch(() => {})
  file.catch(() => {})
  return { file, fields } satisfies MultipartUpload
}

async function parseForm(
  request: Request,
  maxFileBytes: number,
  onFile: (file: MultipartFile) => void,
): Promise<Record<string, string>> {
  const boundary = boundaryOf(request.headers.get('content-type'))
  if (!boundary) throw malformed('The body is not multipart/form-data with a boundary.')
  if (!request.body) throw malformed('The body is empty.')
  const body = new BodyBuffer(request.body.getReader())
  const fields: Record<string, string> = {}
  let fileBytes: FileBytes | undefined
  try {
    await body.readUntil(encoder.encode(`--${boundary}`), limits.preambleBytes, 'preamble')
    const delimiter = encoder.encode(`\r\n--${boundary}`)
    for (let parts = 0; ; parts++) {
      if (await body.skipIfNext('--')) break
      if (!(await body.skipIfNext('\r\n')))
        throw malformed('The multipart body is malformed: a boundary is not followed by a line break.')
      if (parts === limits.parts) throw badField('Too many parts.')
      const part = parsePartHeaders(await body.readPartHeaders())
      if (part.filename === undefined) {
        if (Object.keys(fields).length === limits.fields) throw badField('Too many fields.')
        const value = await body.readUntil(delimiter, limits.fieldBytes, 'field')
        if (value === undefined) throw badField(`The field "${part.name}" is too long.`)
        fields[part.name] = utf8.decode(value)
        continue
      }
      if (part.name !== 'file' || fileBytes) {
        throw badField(`Unexpected file field "${part.name}": send exactly one file, in the field "file".`)
      }
      fileBytes = new FileBytes(maxFileBytes)
      onFile({
        filename: unescapeFormFileName(part.filename),
        contentType: part.contentType,
        stream: fileBytes.stream,
        fieldsBefore: { ...fields },
      })
      await body.streamUntil(delimiter, (chunk) => fileBytes?.write(chunk) ?? Promise.resolve())
    }
    fileBytes?.close()
    return fields
  } catch (error) {
    const failure = error instanceof VaultError ? error : malformed(`The upload was cut off: ${String(error)}.`)
    fileBytes?.fail(failure)
    await body.cancel()
    throw failure
  }
}

/** The file part's bytes as a stream that ends (or fails) only when the whole form has been read. */
class FileBytes {
  readonly stream: ReadableStream<Uint8Array>
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private wanted: (() => void) | undefined
  private size = 0
  private cancelled = false

  constructor(private readonly maxBytes: number) {
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller
      },
      pull: () => {
        this.wanted?.()
        this.wanted = undefined
      },
      cancel: () => {
        this.cancelled = true
        this.wanted?.()
      },
    })
  }

  /** Hands `chunk` on; resolves once the reader wants more. */
  async write(chunk: Uint8Array): Promise<void> {
    if (this.cancelled) throw malformed('The upload was abandoned by its reader.')
    this.size += chunk.byteLength
    if (this.size > this.maxBytes) throw payloadTooLarge(this.maxBytes)
    this.controller.enqueue(chunk)
    if ((this.controller.desiredSize ?? 0) <= 0) await new Promise<void>((resolve) => (this.wanted = resolve))
  }

  close() {
    if (!this.cancelled) this.controller.close()
  }

  fail(error: unknown) {
    if (!this.cancelled) this.controller.error(error)
  }
}

/** The request body with what has been read but not yet consumed. */
class BodyBuffer {
  private buffer = new Uint8Array(0)
  private ended = false

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads another chunk into the buffer; false at the end of the body. */
  private async more(): Promise<boolean> {
    if (this.ended) return false
    const { done, value } = await this.reader.read()
    if (done) {
      this.ended = true
      return false
    }
    const joined = new Uint8Array(this.buffer.byteLength + value.byteLength)
    joined.set(this.buffer)
    joined.set(value, this.buffer.byteLength)
    this.buffer = joined
    return true
  }

  private consume(length: number): Uint8Array {
    const taken = this.buffer.subarray(0, length)
    this.buffer = this.buffer.subarray(length)
    return taken
  }

  /** Consumes `text` when the body continues with it. */
  async skipIfNext(text: string): Promise<boolean> {
    const expected = encoder.encode(text)
    while (this.buffer.byteLength < expected.byteLength) {
      if (!(await this.more())) throw malformed('The multipart body was cut short.')
    }
    if (!expected.every((byte, i) => this.buffer[i] === byte)) return false
    this.consume(expected.byteLength)
    return true
  }

  /** A part's header block (without its blank line); empty when the part has no headers. */
  async readPartHeaders(): Promise<string> {
    if (await this.skipIfNext('\r\n')) return ''
    const headers = await this.readUntil(encoder.encode('\r\n\r\n'), limits.headerBytes, 'headers')
    if (headers === undefined) throw malformed('The multipart body is malformed: a part has over 16 KiB of headers.')
    return utf8.decode(headers)
  }

  /** The bytes before `pattern`, which is consumed too; undefined when they would exceed `maxBytes`. */
  async readUntil(pattern: Uint8Array, maxBytes: number, what: string): Promise<Uint8Array | undefined> {
    const chunks: Uint8Array[] = []
    let size = 0
    let tooLong = false
    await this.streamUntil(pattern, async (chunk) => {
      size += chunk.byteLength
      if (size > maxBytes) tooLong = true
      else chunks.push(chunk.slice())
    }).catch((error: unknown) => {
      throw error instanceof VaultError ? error : malformed(`The multipart body is malformed in a ${what}.`)
    })
    if (tooLong) return undefined
    return joinChunks(chunks, size)
  }

  /** Hands every byte before `pattern` to `emit` as it arrives, then consumes `pattern`. */
  async streamUntil(pattern: Uint8Array, emit: (chunk: Uint8Array) => Promise<void>): Promise<void> {
    for (;;) {
      const at = indexOf(this.buffer, pattern)
      if (at >= 0) {
        if (at > 0) await emit(this.consume(at))
        this.consume(pattern.byteLength)
        return
      }
      // Everything but a tail that could be the start of `pattern` is safe to hand on.
      const safe = this.buffer.byteLength - (pattern.byteLength - 1)
      if (safe > 0) await emit(this.consume(safe))
      if (!(await this.more())) throw malformed('The multipart body was cut short.')
    }
  }

  async cancel() {
    await this.reader.cancel().catch(() => {})
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]
  for (let at = haystack.indexOf(first as number); at >= 0 && at <= haystack.byteLength - needle.byteLength; ) {
    let i = 1
    while (i < needle.byteLength && haystack[at + i] === needle[i]) i++
    if (i === needle.byteLength) return at
    at = haystack.indexOf(first as number, at + 1)
  }
  return -1
}

/** The `boundary` parameter of a `multipart/form-data` content type. */
function boundaryOf(contentType: string | null): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return undefined
  const boundary = headerParams(contentType).boundary
  return boundary && boundary.length <= 70 ? boundary : undefined
}

interface PartHeaders {
  name: string
  filename?: string
  contentType: string
}

function parsePartHeaders(block: string): PartHeaders {
  const headers = new Map<string, string>()
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  const disposition = headers.get('content-disposition') ?? ''
  if (!/^form-data\s*(;|$)/i.test(disposition))
    throw malformed('The multipart body is malformed: a part is not form-data.')
  const params = headerParams(disposition)
  if (params.name === undefined) throw malformed('The multipart body is malformed: a part has no name.')
  return {
    name: params.name,
    ...(params.filename !== undefined ? { filename: params.filename } : {}),
    contentType:
      headers.get('content-type') ?? (params.filename !== undefined ? 'application/octet-stream' : 'text/plain'),
  }
}

/** `; key=value` and `; key="quoted \" value"` parameters of a header, keys lower-cased. */
function headerParams(header: string): Record<string, string> {
  const params: Record<string, string> = {}
  for (const match of header.matchAll(/;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g)) {
    const key = (match[1] as string).toLowerCase()
    params[key] = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? '').trim()
  }
  return params
}
