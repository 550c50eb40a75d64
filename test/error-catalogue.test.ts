import { describe, expect, it } from 'vitest'
import { type ErrorCode, errorCatalogue, errorCodes } from '../src/core/errors.js'
import { buildOpenApiDocument } from '../src/routes/docs/openapi-document.js'
import { callApi } from './support/in-process-api.js'
import { setUpInProcessSuite } from './support/test-vault.js'

const suite = setUpInProcessSuite()

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: { Problem: { properties: { code: { enum: string[] } } } } }
}

const openApiDocument = () =>
  buildOpenApiDocument(suite.vault.app, {
    version: '0.0.0-test',
    serverUrl: '/',
    printerProviders: suite.vault.deps.printers.providers,
  }) as unknown as Document

/** Every operation of the document as `METHOD path`, with its responses. */
const operations = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
  )

describe('the error catalogue', () => {
  it('is the enum of Problem.code in the OpenAPI document, code for code', () => {
    expect(openApiDocument().components.schemas.Problem.properties.code.enum).toEqual(errorCodes)
    expect(errorCodes).toEqual(Object.keys(errorCatalogue))
  })

  it('gives every problem status an operation documents to some code', () => {
    const statuses = new Set<number>(Object.values(errorCatalogue).map((entry) => entry.status))
    const undocumented = operations(openApiDocument()).flatMap(({ name, operation }) =>
      Object.entries(operation.responses)
        .filter(([status, response]) => response.content?.['application/problem+json'] && !statuses.has(Number(status)))
        .map(([status]) => `${name} ${status}`),
    )
    expect(undocumented).toEqual([])
  })

  it('documents the restore gate’s 503 on every API operation, and 507 on the uploads', () => {
    const apiOperations = operations(openApiDocument()).filter(({ name }) => name.includes(' /api/'))
    expect(apiOperations.length).toBeGreaterThan(50)
    expect(apiOperations.filter(({ operation }) => !operation.responses['503']).map(({ name }) => name)).toEqual([])
    const uploads = apiOperations.filter(({ name }) => name.includes('/api/v1/ingest'))
    expect(uploads.map(({ name }) => name).sort()).toEqual(['POST /api/v1/ingest', 'PUT /api/v1/ingest/{filename}'])
    for (const { operation } of uploads) expect(operation.responses['507']).toBeDefined()
  })

  const answers: Array<[ErrorCode, () => Response | Promise<Response>]> = [
    ['not_found', () => suite.vault.app.request('/api/v1/models/no-such-model', auth())],
    ['missing_token', () => suite.vault.app.request('/api/v1/models')],
    ['method_not_allowed', () => suite.vault.app.request('/api/v1/health', { method: 'DELETE' })],
    ['malformed_json', () => post('/api/v1/collections', '{"name": ')],
    ['validation_failed', () => post('/api/v1/collections', '{"name": ""}')],
    ['collection_name_taken', () => post('/api/v1/collections', '{"name": "Benchies"}')],
  ]

  it.each(answers)('answers %s with its status and title', async (code, request) => {
    await callApi(suite, 'POST', '/api/v1/collections', { name: 'Benchies' })
    const answer = await request()
    expect(answer.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await answer.json()) as { code: string; status: number; title: string }
    const { status, title } = errorCatalogue[code]
    expect({ status: answer.status, code: problem.code, title: problem.title }).toEqual({ status, code, title })
    expect(problem.status).toBe(status)
  })
})

const auth = () => ({ headers: { Authorization: suite.authorization } })

const post = (path: string, body: string) =>
  suite.vault.app.request(path, {
    method: 'POST',
    headers: { Authorization: suite.authorization, 'Content-Type': 'application/json' },
    body,
  })
