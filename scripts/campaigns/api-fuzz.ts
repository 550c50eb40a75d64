/**
 * Spec-driven fuzz campaign: `npx tsx scripts/campaigns/api-fuzz.ts [--count 200] [--seed 1]
 * [--postgres]` (`--count`: requests per operation; SQLite in a temporary directory, or a
 * throwaway PostgreSQL with --postgres).
 *
 * Reads the live OpenAPI document of a vault and, for every operation, sends seeded requests:
 * valid ones built from the documented schemas (with real ids of records it made first) and
 * mutated ones (wrong types, missing required fields, huge strings, odd Unicode, unknown fields,
 * malformed JSON, wrong content types, bad ids and query values, missing or bad tokens). Every
 * answer is checked against the document:
 *
 * - `server_error`: no 5xx;
 * - `undocumented_status`: the status is one the operation documents;
 * - `problem_type`, `problem_shape`: every 4xx is `application/problem+json` with the documented
 *   shape and its own status in `status`, or, where the operation documents another error shape
 *   (the OctoPrint-compatible shim's `{"error": "…"}`), that one;
 * - `undocumented_content_type`, `schema`: every 2xx body has a documented content type and,
 *   when JSON, validates against the documented schema.
 *
 * Prints requests by operation and outcome, and every violation (first 50).
 */

import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { type ServerType, serve } from '@hono/node-server'
import { createNodeDeps } from '../../src/adapters/node/node-deps.js'
import { createApp } from '../../src/app.js'
import { ensureFirstSuperuser } from '../../src/core/accounts/first-superuser.js'
import { parseConfig } from '../../src/core/config/config.js'
import { createJsonLogger } from '../../src/core/runtime/logger.js'
import { startThrowawayPostgres } from '../../test/support/throwaway-postgres.js'
import { seededRandom } from '../seeded-random.js'
import { checkSchema, type JsonSchema, resolveRef } from './json-schema-check.js'

interface Operation {
  id: string
  method: string
  path: string
  public: boolean
  parameters: { name: string; in: string; required?: boolean; schema: JsonSchema }[]
  body?: { required?: boolean; content: Record<string, { schema: JsonSchema }> }
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>
}

interface FuzzRequest {
  mutation: string
  method: string
  path: string
  headers: Record<string, string>
  body?: string | Blob | FormData
}

export interface Violation {
  kind: string
  operation: string
  mutation: string
  request: string
  status: number
  detail: string
}

export interface ApiFuzzReport {
  seed: number
  operations: number
  requests: number
  /** Answers by status class (`2xx`, `4xx`, …). */
  byClass: Record<string, number>
  /** Requests by mutation. */
  byMutation: Record<string, number>
  /** Requests sent again after the connection closed under them (see `no_answer`). */
  retried: number
  /** Milliseconds spent on each operation's requests. */
  msByOperation: Record<string, number>
  violations: Violation[]
}

/** Seeded choices: the same seed sends the same requests. */
function seededChoices(seed: number) {
  const next = seededRandom(seed)
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  }
}
type Random = ReturnType<typeof seededChoices>

const oddStrings = [
  '',
  ' ',
  '\u0000',
  'tab\there',
  'line\nbreak',
  '💾🖨️ Ünïcødé 日本語',
  '\u202egnp.exe',
  '\ud800',
  'a,b,c',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%00%2F',
  'NaN',
  '-1',
]
const badIds = ['nope', 'x'.repeat(300), '..%2F..%2Fetc', '%00', '💾', '0', '-1', "'; DROP TABLE files; --", 'a%2Fb']
const hugeString = 'x'.repeat(200_000)

/** A value the schema accepts, built from its constraints and examples. */
function sample(document: unknown, schema: JsonSchema, random: Random, depth = 0): unknown {
  if (schema.$ref) return sample(document, resolveRef(document, schema.$ref as string), random, depth)
  if (schema.allOf)
    return Object.assign({}, ...(schema.allOf as JsonSchema[]).map((part) => sample(document, part, random, depth)))
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (branches) {
    const nonNull = branches.filter((branch) => branch.type !== 'null')
    return sample(
      document,
      random.chance(0.8) && nonNull.length > 0 ? random.pick(nonNull) : random.pick(branches),
      random,
      depth,
    )
  }
  if (schema.enum) return random.pick(schema.enum as unknown[])
  if ('const' in schema) return schema.const
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string]
  const type =
    types.length > 1 && random.chance(0.2) && types.includes('null')
      ? 'null'
      : (types.find((t) => t !== 'null') ?? types[0])
  switch (type) {
    case 'null':
      return null
    case 'boolean':
      return random.chance(0.5)
    case 'integer':
    case 'number': {
      const low = (schema.minimum as number | undefined) ?? ((schema.exclusiveMinimum as number | undefined) ?? 0) + 1
      const high = Math.min((schema.maximum as number | undefined) ?? low + 100, low + 100)
      return low + random.int(Math.max(1, high - low + 1))
    }
    case 'string': {
      if (schema.example !== undefined && random.chance(0.5)) return schema.example
      if (schema.format === 'date-time')
        return new Date(Date.UTC(2026, random.int(12), 1 + random.int(28))).toISOString()
      const min = (schema.minLength as number | undefined) ?? 0
      const max = (schema.maxLength as number | undefined) ?? 40
      const word = schema.format === 'password' ? 'correct-horse-battery-staple' : `fuzz-${random.int(1e6)}`
      return word.padEnd(min, 'z').slice(0, Math.max(min, Math.min(max, word.length)))
    }
    case 'array': {
      if (depth > 4) return []
      const length = Math.min(random.int(3), (schema.maxItems as number | undefined) ?? 3)
      return Array.from({ length: Math.max(length, (schema.minItems as number | undefined) ?? 0) }, () =>
        sample(document, (schema.items as JsonSchema | undefined) ?? {}, random, depth + 1),
      )
    }
    case 'object': {
      const properties = (schema.properties as Record<string, JsonSchema> | undefined) ?? {}
      const required = new Set((schema.required as string[] | undefined) ?? [])
      return Object.fromEntries(
        Object.entries(properties)
          .filter(([name]) => required.has(name) || (depth < 4 && random.chance(0.5)))
          .map(([name, property]) => [name, sample(document, property, random, depth + 1)]),
      )
    }
    default:
      return 'fuzz'
  }
}

/** A value of another JSON type than `value`. */
const wrongType = (value: unknown, random: Random): unknown =>
  typeof value === 'string'
    ? random.pick([42, true, null, ['x'], { x: 1 }])
    : typeof value === 'number'
      ? random.pick(['12', 'NaN', true, null, [1], 1e308 * 10 || 'Infinity'])
      : typeof value === 'boolean'
        ? random.pick(['true', 1, null])
        : Array.isArray(value)
          ? random.pick(['[]', { length: 0 }, 7])
          : random.pick(['{}', [], 0, null])

/** Paths of string leaves in a sampled body, for the string mutations. */
const stringKeys = (body: unknown) =>
  body && typeof body === 'object' && !Array.isArray(body)
    ? Object.entries(body)
        .filter(([, value]) => typeof value === 'string')
        .map(([key]) => key)
    : []

const stlBytes = (random: Random) => {
  const size = 5 + random.int(20)
  const facets = [
    [0, 0, 0, size, 0, 0, 0, size, 0],
    [0, 0, 0, 0, 0, size, size, 0, 0],
    [0, 0, 0, 0, size, 0, 0, 0, size],
    [size, 0, 0, 0, 0, size, 0, size, 0],
  ]
  const text = [
    'solid fuzz',
    ...facets.map(
      (f) =>
        `facet normal 0 0 0\nouter loop\nvertex ${f.slice(0, 3).join(' ')}\nvertex ${f.slice(3, 6).join(' ')}\nvertex ${f.slice(6).join(' ')}\nendloop\nendfacet`,
    ),
    'endsolid fuzz',
  ].join('\n')
  return new TextEncoder().encode(text)
}

const mutations = [
  'valid',
  'valid',
  'wrong_type',
  'missing_required',
  'huge_string',
  'odd_unicode',
  'unknown_field',
  'malformed_json',
  'wrong_content_type',
  'empty_body',
  'bad_id',
  'bad_query',
  'no_token',
  'bad_token',
] as const
type Mutation = (typeof mutations)[number]

interface Fixtures {
  token: string
  /** Real ids by the collection path segment that addresses them (`files`, `models`, …). */
  ids: Record<string, string[]>
  signIn(): Promise<string | undefined>
}

function buildRequest(
  document: unknown,
  op: Operation,
  mutation: Mutation,
  fixtures: Fixtures,
  random: Random,
  counter: number,
): FuzzRequest {
  const headers: Record<string, string> = {}
  if (mutation === 'no_token') {
    // No Authorization header at all.
  } else if (mutation === 'bad_token')
    headers.Authorization = random.pick(['Bearer garbage', `Bearer ${fixtures.token}x`, 'Basic cm9vdDpyb290', 'Bearer'])
  else headers.Authorization = `Bearer ${fixtures.token}`

  const collection = /^\/api\/v1\/(?:admin\/)?([a-z-]+)/.exec(op.path)?.[1] ?? ''
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const pool = fixtures.ids[name === 'model_id' ? 'models' : name === 'backup_id' ? 'no-restores' : collection] ?? []
    const id =
      mutation === 'bad_id' || pool.length === 0 || random.chance(0.15)
        ? random.pick(badIds)
        : name === 'filename'
          ? `fuzz-${counter}.stl`
          : random.pick(pool)
    return encodeURIComponent(id).replaceAll('%25', '%')
  })
  const query = new URLSearchParams()
  for (const parameter of op.parameters.filter((p) => p.in === 'query')) {
    if (mutation === 'bad_query' && random.chance(0.7))
      query.set(parameter.name, random.pick([...oddStrings, hugeString.slice(0, 5000), '-5', '1e9', 'true']))
    else if (parameter.required || random.chance(0.4))
      query.set(parameter.name, String(sample(document, parameter.schema, random)))
  }

  const request: FuzzRequest = { mutation, method: op.method, path: `${path}${query.size ? `?${query}` : ''}`, headers }
  const contentTypes = Object.keys(op.body?.content ?? {})
  if (contentTypes.length === 0) return request
  const contentType = random.pick(contentTypes)
  const schema = op.body?.content[contentType]?.schema ?? {}
  if (mutation === 'empty_body') return request

  if (contentType === 'multipart/form-data') {
    const form = new FormData()
    if (mutation !== 'missing_required') {
      const bytes = mutation === 'odd_unicode' ? new Uint8Array(0) : stlBytes(random)
      form.append(
        'file',
        new Blob([bytes]),
        mutation === 'odd_unicode' ? random.pick(oddStrings) || 'x' : `fuzz-${counter}.stl`,
      )
    }
    if (random.chance(0.3) || mutation === 'bad_id')
      form.append('model_id', random.pick([...badIds, ...(fixtures.ids.models ?? [])]))
    if (mutation === 'wrong_content_type') {
      request.headers['Content-Type'] = 'application/json'
      request.body = '{"file": "not a file"}'
    } else request.body = form
    return request
  }
  if (!/json/.test(contentType)) {
    request.headers['Content-Type'] = mutation === 'wrong_content_type' ? 'application/json' : contentType
    request.body =
      mutation === 'huge_string'
        ? hugeString
        : contentType === 'text/plain'
          ? random.pick([
              '[filament:Fuzz PLA]\nfilament_type = PLA\nfilament_diameter = 1.75\n',
              '[printer:Fuzz]\nbed_shape = 0x0,200x0,200x200,0x200\n',
              random.pick(oddStrings),
            ])
          : new Blob([stlBytes(random)])
    return request
  }

  let body = sample(document, schema, random)
  const keys = stringKeys(body)
  const record = body as Record<string, unknown>
  switch (mutation) {
    case 'wrong_type': {
      const names = body && typeof body === 'object' ? Object.keys(body) : []
      if (names.length > 0 && random.chance(0.8)) {
        const name = random.pick(names)
        record[name] = wrongType(record[name], random)
      } else body = wrongType(body, random)
      break
    }
    case 'missing_required': {
      const required = (resolveSchema(document, schema).required as string[] | undefined) ?? []
      if (required.length > 0) delete record[random.pick(required)]
      else body = random.pick([[], null])
      break
    }
    case 'huge_string':
      if (keys.length > 0) record[random.pick(keys)] = hugeString
      break
    case 'odd_unicode':
      for (const key of keys) record[key] = random.pick(oddStrings)
      break
    case 'unknown_field':
      if (body && typeof body === 'object') record[random.pick(['zz_unknown', '__proto__', 'constructor', 'id'])] = 1
      break
  }
  request.headers['Content-Type'] =
    mutation === 'wrong_content_type'
      ? random.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])
      : 'application/json'
  request.body =
    mutation === 'malformed_json'
      ? random.pick(['{"a":', '{', 'nul', '[1,2', "{'single': 1}", '\u0000'])
      : JSON.stringify(body)
  return request
}

const resolveSchema = (document: unknown, schema: JsonSchema): JsonSchema =>
  schema.$ref ? resolveSchema(document, resolveRef(document, schema.$ref as string)) : schema

/** Checks one answer against the operation's documented responses. */
async function judge(document: unknown, op: Operation, request: FuzzRequest, response: Response): Promise<Violation[]> {
  const violations: Violation[] = []
  const status = response.status
  // An event stream stays open until the client leaves: its status and type are judged, not its body.
  const streamed = (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
  if (streamed) await response.body?.cancel()
  const text = streamed ? '' : await response.text()
  const add = (kind: string, detail: string) =>
    violations.push({
      kind,
      operation: op.id,
      mutation: request.mutation,
      request: `${request.method} ${request.path.slice(0, 120)}`,
      status,
      detail: detail.slice(0, 400),
    })
  if (status >= 500) add('server_error', text)
  const documented = op.responses[String(status)]
  if (!documented) {
    add('undocumented_status', `${status} is not among ${Object.keys(op.responses).join(', ')}: ${text}`)
    return violations
  }
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  const ownErrorShape = documented.content?.[mediaType]?.schema
  if (status >= 400 && mediaType !== 'application/problem+json' && ownErrorShape) {
    try {
      const problems = checkSchema(document, ownErrorShape, JSON.parse(text))
      if (problems.length > 0) add('problem_shape', problems.join('; '))
    } catch {
      add('problem_shape', `not JSON: ${text.slice(0, 100)}`)
    }
    return violations
  }
  if (status >= 400) {
    if (mediaType !== 'application/problem+json') add('problem_type', `Content-Type ${mediaType}`)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      add('problem_shape', `not JSON: ${text.slice(0, 100)}`)
      return violations
    }
    const schema = documented.content?.['application/problem+json']?.schema
    const problems = schema ? checkSchema(document, schema, body) : ['no problem schema documented']
    if ((body as { status?: unknown }).status !== status)
      problems.push(`status member ${(body as { status?: unknown }).status}`)
    if (problems.length > 0) add('problem_shape', problems.join('; '))
    return violations
  }
  if (!documented.content || status === 204 || status === 304) return violations
  const content = documented.content[mediaType]
  if (!content) {
    add('undocumented_content_type', `${mediaType} is not among ${Object.keys(documented.content).join(', ')}`)
    return violations
  }
  if (/json/.test(mediaType)) {
    try {
      const problems = checkSchema(document, content.schema, JSON.parse(text))
      if (problems.length > 0) add('schema', problems.slice(0, 5).join('; '))
    } catch (error) {
      add('schema', `not JSON: ${String(error)}`)
    }
  }
  return violations
}

function operationsOf(document: { paths: Record<string, Record<string, Record<string, unknown>>> }): Operation[] {
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      id: op.operationId as string,
      method: method.toUpperCase(),
      path,
      public: Array.isArray(op.security) && op.security.length === 0,
      parameters: (op.parameters as Operation['parameters'] | undefined) ?? [],
      body: op.requestBody as Operation['body'],
      responses: op.responses as Operation['responses'],
    })),
  )
  // Deletions last, so the records they remove serve the other operations first.
  return operations.sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'))
}

/**
 * Records for the valid requests to address: a file and its model, a collection, a virtual
 * printer, profiles, an API key, a second user, a backup.
 */
async function makeFixtures(baseUrl: string, username: string, password: string): Promise<Fixtures> {
  const signIn = async () => {
    const res = await fetch(`${baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password }),
    })
    return res.status === 200 ? ((await res.json()) as { access_token: string }).access_token : undefined
  }
  const token = await signIn()
  if (!token) throw new Error('the fuzz campaign cannot sign in')
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
    if (res.status >= 300) throw new Error(`fixture ${path} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as Record<string, unknown>
  }
  const form = new FormData()
  form.append('file', new Blob([stlBytes(seededChoices(1))]), 'fixture.stl')
  const upload = (await (
    await fetch(`${baseUrl}/api/v1/ingest`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    })
  ).json()) as { file: { id: string }; model: { id: string } }
  const collection = await post('/api/v1/collections', { name: 'Fuzz fixtures' })
  const printer = await post('/api/v1/printers', {
    name: 'Fuzz printer',
    provider: 'virtual',
    address: 'virtual://fuzz',
  })
  const filament = await post('/api/v1/filament-profiles', { name: 'Fuzz PLA' })
  const printerProfile = await post('/api/v1/printer-profiles', { name: 'Fuzz MK4' })
  const key = await post('/api/v1/api-keys', { name: 'fuzz', scopes: ['read'] })
  const user = await post('/api/v1/admin/users', { username: 'fuzz-user', password: 'fuzz-user-password-1' })
  const backup = await fetch(`${baseUrl}/api/v1/backups`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}` },
  })
  const backupId = ((await backup.json()) as { id: string }).id
  return {
    token,
    signIn,
    ids: {
      files: [upload.file.id],
      models: [upload.model.id],
      collections: [collection.id as string],
      printers: [printer.id as string],
      'filament-profiles': [filament.id as string],
      'printer-profiles': [printerProfile.id as string],
      'api-keys': [key.id as string],
      // Never the caller's own account: a fuzzed role or `disabled` on it would end the campaign.
      users: [user.id as string],
      backups: [backupId],
    },
  }
}

/** Operations whose valid call would end the campaign's own session (or every session). */
const sessionEnding = new Set(['logout', 'restoreBackup'])

export async function runApiFuzz(options: {
  baseUrl: string
  username: string
  password: string
  /** Requests per operation. */
  count: number
  seed: number
}): Promise<ApiFuzzReport> {
  const random = seededChoices(options.seed)
  const document = await (await fetch(`${options.baseUrl}/openapi.json`)).json()
  const operations = operationsOf(document)
  const fixtures = await makeFixtures(options.baseUrl, options.username, options.password)
  const report: ApiFuzzReport = {
    seed: options.seed,
    operations: operations.length,
    requests: 0,
    byClass: {},
    byMutation: {},
    msByOperation: {},
    retried: 0,
    violations: [],
  }
  let counter = 0
  for (const op of operations) {
    const started = performance.now()
    for (let sent = 0; sent < options.count; sent++) {
      // Rotating over all operations, so a small count still sends every mutation somewhere.
      const mutation = mutations[counter % mutations.length] as Mutation
      const request = buildRequest(document, op, mutation, fixtures, random, counter++)
      if (sessionEnding.has(op.id) && request.headers.Authorization === `Bearer ${fixtures.token}`) {
        // A session of its own, so the campaign's token lives on.
        const own = op.id === 'logout' ? await fixtures.signIn() : undefined
        request.headers.Authorization = `Bearer ${own ?? 'not-a-session'}`
      }
      report.requests++
      report.byMutation[mutation] = (report.byMutation[mutation] ?? 0) + 1
      const send = () =>
        fetch(`${options.baseUrl}${request.path}`, {
          method: request.method,
          headers: request.headers,
          ...(request.body !== undefined ? { body: request.body } : {}),
        }).catch((error: Error) => error)
      let response = await send()
      if (response instanceof Error) {
        // A pooled keep-alive connection the server closed as idle while this request was being
        // put on it (slow operations such as sendToPrinter leave the others idle for seconds):
        // the request never reached the server, so it is sent once more on a fresh connection.
        report.retried++
        response = await send()
      }
      if (response instanceof Error) {
        // The server closed the connection before the client could read an answer.
        report.violations.push({
          kind: 'no_answer',
          operation: op.id,
          mutation,
          request: `${request.method} ${request.path.slice(0, 120)}`,
          status: 0,
          detail: `${response.message}: ${String((response.cause as Error | undefined)?.message ?? '')}`,
        })
        continue
      }
      const statusClass = `${String(response.status)[0]}xx`
      report.byClass[statusClass] = (report.byClass[statusClass] ?? 0) + 1
      report.violations.push(...(await judge(document, op, request, response)))
    }
    report.msByOperation[op.id] = Math.round(performance.now() - started)
  }
  return report
}

export function formatReport(report: ApiFuzzReport): string {
  const byKind = new Map<string, number>()
  for (const violation of report.violations) byKind.set(violation.kind, (byKind.get(violation.kind) ?? 0) + 1)
  return [
    `seed ${report.seed}: ${report.requests} requests over ${report.operations} operations (${report.retried} sent again after a closed connection)`,
    `answers: ${Object.entries(report.byClass)
      .sort()
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `mutations: ${Object.entries(report.byMutation)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `slowest operations (ms): ${Object.entries(report.msByOperation)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `violations: ${report.violations.length}${[...byKind].map(([k, v]) => ` ${k} ${v}`).join(',')}`,
    ...report.violations
      .slice(0, 50)
      .map((v) => `  ${v.kind} ${v.operation} [${v.mutation}] ${v.request} → ${v.status}: ${v.detail}`),
  ].join('\n')
}

/** Runs the campaign against a vault started in this process, as `npm start` would start it. */
async function main() {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', default: '200' },
      seed: { type: 'string', default: '1' },
      postgres: { type: 'boolean', default: false },
    },
  })
  const dataDir = await mkdtemp(join(tmpdir(), 'vault-api-fuzz-'))
  const admin = { username: 'fuzz-admin', password: 'fuzz-admin-password-123' }
  const postgres = values.postgres ? await startThrowawayPostgres() : undefined
  const config = parseConfig({
    VAULT_DATA_DIR: dataDir,
    ...(postgres ? { VAULT_DATABASE_URL: postgres.adminUrl } : {}),
  })
  const logger = createJsonLogger(() => {}, { level: 'error' })
  const service = {
    name: 'model-vault',
    version: '0.0.0-fuzz',
    instanceId: crypto.randomUUID(),
    startedAt: new Date().toISOString(),
  }
  const { deps, close } = await createNodeDeps(config, { logger, service })
  await ensureFirstSuperuser(deps, logger, admin)
  const app = createApp(deps)
  const { server, port } = await new Promise<{ server: ServerType; port: number }>((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve({ server, port: info.port }),
    )
  })
  try {
    const started = Date.now()
    const report = await runApiFuzz({
      baseUrl: `http://127.0.0.1:${port}`,
      ...admin,
      count: Number(values.count),
      seed: Number(values.seed),
    })
    console.log(formatReport(report))
    console.log(`took ${((Date.now() - started) / 1000).toFixed(1)} s`)
    process.exitCode = report.violations.length > 0 ? 1 : 0
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await close()
    postgres?.stop()
    await rm(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main()
