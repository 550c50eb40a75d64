/**
 * Cut bodies: `npx tsx scripts/campaigns/cut-bodies.ts [--offsets 24] [--mib 4] [--build <dir>]`.
 *
 * Starts the built service on a temporary data directory and sends every route that takes a
 * body (multipart ingest, raw, zip and chunked PUT ingest, the OctoPrint-compatible upload, preset
 * import, sign-in) over a raw socket, cut at `--offsets` places from inside the request line to
 * the last byte, each cut either a reset or a half-close, as a cancelled upload, a closed tab or
 * a dropped connection leave it. After every cut the service must answer its health check within
 * `stallMs`; at the end every cut request the service saw must have ended, none with a 5xx, the
 * file stored before the campaign must read back whole, nothing of a cut body may be stored, and
 * staging and scratch must be empty. A normal upload afterwards must still work.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { zipSync } from 'fflate'
import { ensureBuilt } from '../../test/support/built-vault.js'
import { filesUnder } from '../../test/support/leftovers.js'
import { buildDirArgument, type ServiceProcess, signInAdmin, startServiceProcess } from './service-process.js'

/** A health check slower than this after a cut counts as a stall. */
const stallMs = 5_000

export interface CutBodyRequest {
  /** `METHOD path (how the body is framed)`, as the report names it. */
  label: string
  path: string
  bytes: Buffer
  /** Where the body starts in `bytes`: cuts from here on reach the route's handler. */
  bodyStart: number
}

export interface CutBodiesReport {
  cases: number
  /** Cuts per request label. */
  perRoute: Record<string, number>
  /** Answers of 500 or more in the service's log for the cut requests. */
  serverErrors: string[]
  /** The service was gone after a cut. */
  crashes: string[]
  /** Health took longer than `stallMs` after a cut, or a cut request never ended in the log. */
  stalls: string[]
  /** The file stored before the campaign no longer reads back whole, or a cut body was stored. */
  bytesLost: string[]
  /** Files left in blob or thumbnail staging or the backup scratch directory. */
  leftovers: string[]
  /** Status of a normal upload sent after the campaign. */
  uploadAfter: number
}

const crlf = '\r\n'

/** Every request of the campaign, complete; `file` is the upload's content. */
export function cutBodyRequests(host: string, authorization: string, apiKey: string, file: Buffer): CutBodyRequest[] {
  const boundary = `----cut${randomBytes(8).toString('hex')}`
  const multipart = (field: string, filename: string) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}${crlf}Content-Disposition: form-data; name="${field}"; filename="${filename}"${crlf}` +
          `Content-Type: application/octet-stream${crlf}${crlf}`,
      ),
      file,
      Buffer.from(`${crlf}--${boundary}--${crlf}`),
    ])
  const framed = (method: string, path: string, headers: Record<string, string>, body: Buffer, label: string) => {
    const head = Buffer.from(
      `${method} ${path} HTTP/1.1${crlf}Host: ${host}${crlf}` +
        Object.entries(headers)
          .map(([name, value]) => `${name}: ${value}${crlf}`)
          .join('') +
        crlf,
    )
    return { label: `${method} ${path} (${label})`, path, bytes: Buffer.concat([head, body]), bodyStart: head.length }
  }
  const sized = (type: string, body: Buffer, auth: Record<string, string> = { Authorization: authorization }) => ({
    ...auth,
    'Content-Type': type,
    'Content-Length': String(body.length),
  })
  const chunked = (body: Buffer) =>
    Buffer.concat([Buffer.from(`${body.length.toString(16)}${crlf}`), body, Buffer.from(`${crlf}0${crlf}${crlf}`)])
  const form = multipart('file', 'cut.stl')
  // Stored, not deflated: the zip's own bytes are the file's, so cuts land inside its entry too.
  const zip = Buffer.from(zipSync({ 'cut-model/part.stl': new Uint8Array(file) }, { level: 0 }))
  const iniBundle = Buffer.from(
    `[filament:Cut PLA]${crlf}filament_type = PLA${crlf}${'; padding to make the body long\n'.repeat(2000)}`,
  )
  const login = Buffer.from(JSON.stringify({ username: 'campaign', password: 'x'.repeat(4096) }))
  return [
    framed('POST', '/api/v1/ingest', sized(`multipart/form-data; boundary=${boundary}`, form), form, 'multipart'),
    framed('PUT', '/api/v1/ingest/cut.stl', sized('application/octet-stream', file), file, 'Content-Length'),
    framed('PUT', '/api/v1/ingest/cut.zip', sized('application/zip', zip), zip, 'zip'),
    framed(
      'PUT',
      '/api/v1/ingest/cut-chunked.stl',
      { Authorization: authorization, 'Content-Type': 'application/octet-stream', 'Transfer-Encoding': 'chunked' },
      chunked(file),
      'chunked',
    ),
    framed(
      'POST',
      '/api/files/local',
      sized(`multipart/form-data; boundary=${boundary}`, form, { 'X-Api-Key': apiKey }),
      form,
      'OctoPrint multipart',
    ),
    framed('POST', '/api/v1/filament-profiles/import', sized('text/plain', iniBundle), iniBundle, 'preset bundle'),
    framed('POST', '/api/v1/auth/login', sized('application/json', login, {}), login, 'JSON'),
  ]
}

/** `count` cut points from the request line to the last byte, denser where the body starts. */
export function cutOffsets(request: CutBodyRequest, count: number): number[] {
  const { bodyStart, bytes } = request
  const fixed = [1, bodyStart - 2, bodyStart, bodyStart + 1, bytes.length - 1]
  const spread = Array.from({ length: Math.max(0, count - fixed.length) }, (_, i) =>
    Math.round(bodyStart + ((bytes.length - bodyStart) * (i + 1)) / (count - fixed.length + 1)),
  )
  return [...new Set([...fixed, ...spread])]
    .filter((offset) => offset > 0 && offset < bytes.length)
    .sort((a, b) => a - b)
}

/**
 * Sends `bytes` up to `offset` and then cuts the connection: `reset` sends a TCP RST at once;
 * `half-close` ends the sending side and reads whatever the server answers until it closes.
 */
export function sendCut(url: string, bytes: Buffer, offset: number, how: 'reset' | 'half-close'): Promise<void> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    socket.on('error', () => resolve())
    socket.on('close', () => resolve())
    socket.on('data', () => {})
    socket.on('connect', () =>
      socket.write(bytes.subarray(0, offset), () => {
        if (how === 'reset') socket.resetAndDestroy()
        else socket.end()
      }),
    )
    // A half-closed request the server keeps waiting on is cut by the client after a while.
    socket.setTimeout(stallMs, () => socket.destroy())
  })
}

/**
 * Asks for `path` and cuts the connection once `afterBytes` of the answer have arrived (0: as
 * soon as the request is sent), as a browser tab closed during a download does.
 */
export function cutDownload(url: string, path: string, authorization: string, afterBytes: number): Promise<void> {
  const { hostname, port, host } = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    let received = 0
    socket.on('error', () => resolve())
    socket.on('close', () => resolve())
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length
      if (received >= afterBytes) socket.resetAndDestroy()
    })
    socket.on('connect', () =>
      socket.write(
        `GET ${path} HTTP/1.1${crlf}Host: ${host}${crlf}Authorization: ${authorization}${crlf}${crlf}`,
        () => {
          if (afterBytes === 0) socket.resetAndDestroy()
        },
      ),
    )
    socket.setTimeout(stallMs, () => socket.destroy())
  })
}

async function healthWithin(url: string, ms: number): Promise<number | string> {
  try {
    const res = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(ms) })
    await res.arrayBuffer()
    return res.status
  } catch (error) {
    return (error as Error).name
  }
}

/** The service's request log lines for `paths`, parsed. */
function loggedRequests(log: string, paths: Set<string>): { path: string; status: number }[] {
  return log
    .split('\n')
    .filter((line) => line.includes('"msg":"request"'))
    .map((line) => JSON.parse(line) as { path: string; status: number })
    .filter((line) => paths.has(line.path))
}

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return true
}

async function storedFiles(url: string, authorization: string): Promise<{ id: string; size: number }[]> {
  const res = await fetch(`${url}/api/v1/models?limit=200`, { headers: { Authorization: authorization } })
  const { items } = (await res.json()) as { items: { id: string }[] }
  const files = await Promise.all(
    items.map(async ({ id }) => {
      const model = await fetch(`${url}/api/v1/models/${id}`, { headers: { Authorization: authorization } })
      return ((await model.json()) as { files: { id: string; size: number }[] }).files
    }),
  )
  return files.flat()
}

async function upload(url: string, authorization: string, name: string, bytes: Buffer): Promise<Response> {
  return fetch(`${url}/api/v1/ingest/${name}`, {
    method: 'PUT',
    headers: { Authorization: authorization, 'Content-Type': 'application/octet-stream' },
    body: new Uint8Array(bytes),
  })
}

export interface CutBodiesOptions {
  service: ServiceProcess
  dataDir: string
  /** Cut points per request. */
  offsets: number
  /** Size of the uploaded file in bytes. */
  fileBytes: number
}

export async function runCutBodies({
  service,
  dataDir,
  offsets,
  fileBytes,
}: CutBodiesOptions): Promise<CutBodiesReport> {
  const { url } = service
  const authorization = await signInAdmin(url)
  const keyAnswer = await fetch(`${url}/api/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'cut-bodies', scopes: ['full'] }),
  })
  const { key } = (await keyAnswer.json()) as { key: string }
  // Larger than the socket buffers on both ends, so a download of it is cut while it streams.
  const kept = randomBytes(4 * 1024 * 1024)
  const keptAnswer = await upload(url, authorization, 'kept-before.bin', kept)
  if (keptAnswer.status !== 201) throw new Error(`the first upload answered ${keptAnswer.status}`)
  const { file: keptFile } = (await keptAnswer.json()) as { file: { id: string } }

  const requests = cutBodyRequests(new URL(url).host, authorization, key, randomBytes(fileBytes))
  const report: CutBodiesReport = {
    cases: 0,
    perRoute: {},
    serverErrors: [],
    crashes: [],
    stalls: [],
    bytesLost: [],
    leftovers: [],
    uploadAfter: 0,
  }
  // Cuts past the request's head reach the app, which logs each request when it ends.
  let reachingTheApp = 0
  for (const request of requests) {
    for (const [index, offset] of cutOffsets(request, offsets).entries()) {
      const how = index % 2 === 0 ? 'reset' : 'half-close'
      const name = `${request.label} cut at ${offset} of ${request.bytes.length} (${how})`
      await sendCut(url, request.bytes, offset, how)
      report.cases++
      report.perRoute[request.label] = (report.perRoute[request.label] ?? 0) + 1
      if (offset >= request.bodyStart) reachingTheApp++
      const health = await healthWithin(url, stallMs)
      if (service.rssMiB() === 0) {
        report.crashes.push(name)
        return report
      }
      if (health !== 200) report.stalls.push(`${name}: health ${health}`)
    }
  }
  const { model_id: keptModel } = (await (
    await fetch(`${url}/api/v1/files/${keptFile.id}`, { headers: { Authorization: authorization } })
  ).json()) as { model_id: string }
  const downloads = {
    'GET /api/v1/files/{id}/content': `/api/v1/files/${keptFile.id}/content`,
    'GET /api/v1/models/{id}/package': `/api/v1/models/${keptModel}/package`,
  }
  for (const [label, path] of Object.entries(downloads)) {
    for (const afterBytes of [0, 1, 4096, 64 * 1024, 512 * 1024]) {
      const name = `${label} cut after ${afterBytes} bytes of the answer`
      await cutDownload(url, path, authorization, afterBytes)
      report.cases++
      report.perRoute[label] = (report.perRoute[label] ?? 0) + 1
      const health = await healthWithin(url, stallMs)
      if (service.rssMiB() === 0) {
        report.crashes.push(name)
        return report
      }
      if (health !== 200) report.stalls.push(`${name}: health ${health}`)
    }
  }
  const paths = new Set(requests.map((request) => request.path))
  const ended = await waitFor(() => loggedRequests(service.output(), paths).length >= reachingTheApp, 30_000)
  const logged = loggedRequests(service.output(), paths)
  if (!ended) report.stalls.push(`${reachingTheApp - logged.length} cut requests never ended`)
  report.serverErrors = logged.filter((line) => line.status >= 500).map((line) => `${line.path}: ${line.status}`)

  const keptNow = await fetch(`${url}/api/v1/files/${keptFile.id}/content`, {
    headers: { Authorization: authorization },
  })
  if (keptNow.status !== 200 || !Buffer.from(await keptNow.arrayBuffer()).equals(kept))
    report.bytesLost.push(`the file stored before the campaign answers ${keptNow.status} or other bytes`)
  const files = await storedFiles(url, authorization)
  if (files.length !== 1) report.bytesLost.push(`${files.length - 1} files stored from cut bodies`)
  report.leftovers = filesUnder(dataDir, ['blobs/.staging', 'thumbs/.staging', 'backups/.scratch'])
  report.uploadAfter = (await upload(url, authorization, 'after.bin', randomBytes(64 * 1024))).status
  return report
}

export function formatReport(report: CutBodiesReport): string {
  return [
    '| Cut bodies | |',
    '|---|---|',
    `| cases | ${report.cases} (${Object.entries(report.perRoute)
      .map(([label, cases]) => `${label}: ${cases}`)
      .join('; ')}) |`,
    `| 5xx | ${report.serverErrors.length} |`,
    `| crashes | ${report.crashes.length} |`,
    `| stalls | ${report.stalls.length} |`,
    `| bytes lost | ${report.bytesLost.length} |`,
    `| leftovers | ${report.leftovers.length} |`,
    `| upload afterwards | ${report.uploadAfter} |`,
    ...[...report.serverErrors, ...report.crashes, ...report.stalls, ...report.bytesLost, ...report.leftovers].map(
      (line) => `- ${line}`,
    ),
  ].join('\n')
}

async function main(): Promise<void> {
  const argument = (name: string, fallback: number) => {
    const at = process.argv.indexOf(`--${name}`)
    return at >= 0 ? Number(process.argv[at + 1]) : fallback
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-cut-'))
  let service: ServiceProcess | undefined
  try {
    service = await startServiceProcess(buildDirArgument() ?? (await ensureBuilt()), {
      VAULT_DATA_DIR: dataDir,
      VAULT_DATABASE_URL: `sqlite:${dataDir}/db/vault.sqlite`,
    })
    const report = await runCutBodies({
      service,
      dataDir,
      offsets: argument('offsets', 24),
      fileBytes: argument('mib', 4) * 1024 * 1024,
    })
    console.log(formatReport(report))
  } finally {
    await service?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
