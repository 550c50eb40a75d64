import { createHash } from 'node:crypto'
import { type FileToSend, PrinterError } from '../../core/printers/provider.js'
import { firstLine } from './state-words.js'

/**
 * The HTTP plumbing the printer providers share: every request has a timeout, and every
 * failure becomes a `PrinterError` whose message names the kind of failure but never the
 * printer's answer body (at most the host's own one-line reason, see `refusal`), the address or
 * the credentials.
 */
export interface HttpAnswer {
  status: number
  headers: Headers
  text: string
}

export interface PrinterHttp {
  request(
    method: string,
    path: string,
    init?: { body?: BodyInit; headers?: Record<string, string>; timeoutMs?: number },
  ): Promise<HttpAnswer>
  /** Like `request`, then demands a 2xx answer with a JSON object body. */
  json(
    method: string,
    path: string,
    init?: { body?: BodyInit; headers?: Record<string, string>; timeoutMs?: number },
  ): Promise<Record<string, unknown>>
}

export interface HttpAuth {
  /** Sent as `X-Api-Key` with every request (Moonraker, OctoPrint, older PrusaLink). */
  apiKey?: string
  /** HTTP Digest (RFC 7616, MD5), as PrusaLink uses. */
  digest?: { username: string; password: string }
}

export function createPrinterHttp(baseUrl: string, timeoutMs: number, auth: HttpAuth = {}): PrinterHttp {
  const base = baseUrl.replace(/\/+$/, '')
  let challenge: Record<string, string> | null = null
  let nonceCount = 0

  const digestHeader = (method: string, uri: string): string | undefined => {
    if (!auth.digest || !challenge) return undefined
    const { username, password } = auth.digest
    const md5 = (value: string) => createHash('md5').update(value).digest('hex')
    const ha1 = md5(`${username}:${challenge.realm}:${password}`)
    const ha2 = md5(`${method}:${uri}`)
    const parts = [`username="${username}"`, `realm="${challenge.realm}"`, `nonce="${challenge.nonce}"`, `uri="${uri}"`]
    if (
      challenge.qop
        ?.split(',')
        .map((q) => q.trim())
        .includes('auth')
    ) {
      const nc = (++nonceCount).toString(16).padStart(8, '0')
      const cnonce = crypto.randomUUID().replace(/-/g, '')
      parts.push(
        'qop=auth',
        `nc=${nc}`,
        `cnonce="${cnonce}"`,
        `response="${md5(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:auth:${ha2}`)}"`,
      )
    } else {
      parts.push(`response="${md5(`${ha1}:${challenge.nonce}:${ha2}`)}"`)
    }
    if (challenge.opaque) parts.push(`opaque="${challenge.opaque}"`)
    return `Digest ${parts.join(', ')}`
  }

  const send = async (
    method: string,
    path: string,
    init: { body?: BodyInit; headers?: Record<string, string>; timeoutMs?: number },
  ) => {
    const limit = init.timeoutMs ?? timeoutMs
    const authorization = digestHeader(method, path)
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: {
          Accept: 'application/json',
          ...(auth.apiKey ? { 'X-Api-Key': auth.apiKey } : {}),
          ...(authorization ? { Authorization: authorization } : {}),
          ...init.headers,
        },
        ...(init.body !== undefined ? { body: init.body, duplex: 'half' } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(limit),
      } as RequestInit)
      return { status: res.status, headers: res.headers, text: await res.text() }
    } catch (error) {
      throw toPrinterError(error, limit)
    }
  }

  const request: PrinterHttp['request'] = async (method, path, init = {}) => {
    let answer = await send(method, path, init)
    const offered = answer.headers.get('www-authenticate')
    const replayable = init.body === undefined || typeof init.body === 'string'
    if (answer.status === 401 && auth.digest && offered && /^digest /i.test(offered)) {
      const fresh = parseChallenge(offered)
      const retry = !challenge || fresh.nonce !== challenge.nonce || /stale=(")?true/i.test(offered)
      challenge = fresh
      nonceCount = 0
      if (retry && replayable) answer = await send(method, path, init)
    }
    if (answer.status === 401 || answer.status === 403) {
      throw new PrinterError(
        'auth',
        auth.apiKey || auth.digest
          ? `the printer refused our credentials (HTTP ${answer.status}); check the API key or user name and password`
          : `the printer asks for credentials (HTTP ${answer.status}) and none are set; add its API key or user name and password`,
      )
    }
    return answer
  }

  return {
    request,
    async json(method, path, init) {
      const answer = await request(method, path, init)
      if (answer.status < 200 || answer.status > 299)
        throw new PrinterError('protocol', `${method} ${path} answered HTTP ${answer.status}`)
      return parseJsonObject(answer.text, `${method} ${path}`)
    },
  }
}

export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new PrinterError('protocol', `${what} answered something that is not JSON`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new PrinterError('protocol', `${what} answered JSON that is not an object`)
  return value as Record<string, unknown>
}

function parseChallenge(header: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const match of header.replace(/^digest\s+/i, '').matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g))
    fields[(match[1] ?? '').toLowerCase()] = match[2] ?? match[3] ?? ''
  return fields
}

function toPrinterError(error: unknown, timeoutMs: number): PrinterError {
  if (error instanceof PrinterError) return error
  const name = (error as { name?: string })?.name
  if (name === 'TimeoutError' || name === 'AbortError')
    return new PrinterError('timeout', `no answer within ${timeoutMs} ms`)
  const code = (error as { cause?: { code?: unknown } })?.cause?.code
  if (typeof code === 'string' && /^[A-Z0-9_]+$/.test(code))
    return new PrinterError('unreachable', `the printer could not be reached (${code})`)
  return new PrinterError('unreachable', 'the printer could not be reached')
}

/** The timeout for sending a print file, which may take far longer than a status read. */
export const uploadTimeoutMs = (timeoutMs: number): number => Math.max(timeoutMs, 600_000)

/**
 * Sends a print file as a streamed `multipart/form-data` POST (the file in field `file`, after
 * `fields`) with the upload timeout. Throws `refused` unless the printer answers 200 or 201,
 * and `protocol` unless that answer is a JSON object, which it returns.
 */
export async function postMultipart(
  http: PrinterHttp,
  path: string,
  fields: Record<string, string>,
  file: FileToSend,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const { body, headers } = multipartBody(fields, { field: 'file', ...file })
  const answer = await http.request('POST', path, { body, headers, timeoutMs: uploadTimeoutMs(timeoutMs) })
  if (answer.status !== 201 && answer.status !== 200) throw refusal('the upload', answer)
  return parseJsonObject(answer.text, 'the upload')
}

/**
 * A refused request as a `PrinterError`: `what` answered HTTP <status>, with the host's own
 * reason in brackets where its JSON error answer gives one (OctoPrint `{error}`, Moonraker
 * `{error: {message}}`, PrusaLink `{title, message}` or `{title, text}`), so that a dispatch record
 * says why ("Printer already has an active print job…") rather than only that.
 */
export function refusal(what: string, answer: HttpAnswer): PrinterError {
  const reason = hostReason(answer.text)
  return new PrinterError('refused', `${what} answered HTTP ${answer.status}${reason ? ` (${reason})` : ''}`)
}

/** The host's one-line reason in a JSON error body, at most 200 characters; null without one. */
function hostReason(text: string): string | null {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return null
  }
  const fields = obj(body)
  const error = obj(fields.error)
  const said = [fields.error, tracedReason(error) ?? error.message, fields.message, fields.text, fields.title]
    .map(firstLine)
    .find((line) => line !== undefined)
  return said ? said.slice(0, 200) : null
}

/**
 * Moonraker answers an error Klipper raised in a macro (`action_raise_error`) with `message`
 * "Unknown": Tornado refuses that reason as an HTTP reason phrase. The reason is still in the
 * `traceback` it sends along, on the line `tornado.web.HTTPError: HTTP 400: <reason>`.
 */
function tracedReason(error: Record<string, unknown>): string | undefined {
  if (error.message !== 'Unknown' || typeof error.traceback !== 'string') return undefined
  const lines = error.traceback.split('\n').map((line) => /HTTPError: HTTP \d{3}: (.+)$/.exec(line.trim())?.[1])
  return lines.filter((reason) => reason !== undefined).at(-1)
}

/** A `multipart/form-data` body that streams the file instead of buffering it. */
function multipartBody(
  fields: Record<string, string>,
  file: { field: string; name: string; size: number; stream: ReadableStream<Uint8Array> },
): { body: ReadableStream<Uint8Array>; headers: Record<string, string> } {
  const boundary = `----model-vault-${crypto.randomUUID()}`
  const encoder = new TextEncoder()
  const head = encoder.encode(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name.replace(/"/g, '')}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  )
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`)
  const reader = file.stream.getReader()
  let phase: 'head' | 'file' | 'done' = 'head'
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (phase === 'head') {
        phase = 'file'
        controller.enqueue(head)
        return
      }
      if (phase === 'file') {
        const { done, value } = await reader.read()
        if (!done) return controller.enqueue(value)
        phase = 'done'
        controller.enqueue(tail)
        return
      }
      controller.close()
    },
    cancel: (reason) => reader.cancel(reason),
  })
  return {
    body,
    headers: {
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(head.byteLength + file.size + tail.byteLength),
    },
  }
}

/** Finite numbers only; anything else is null. */
export const finiteNumberOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null
export const obj = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
export const str = (value: unknown): string | null => (typeof value === 'string' ? value : null)
