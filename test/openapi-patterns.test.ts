import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from '../src/routes/docs/openapi-document.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

let vault: TestVault
let document: unknown

beforeAll(async () => {
  vault = await startTestVault()
  document = buildOpenApiDocument(vault.app, {
    version: '0.0.0-test',
    serverUrl: '/',
    printerProviders: vault.deps.printers.providers,
  })
})

afterAll(async () => {
  await vault?.close()
})

interface PatternedSchema {
  pointer: string
  pattern: string
  examples: unknown[]
}

/** Every schema object in the document that carries a `pattern`, with its JSON pointer. */
function patternedSchemas(node: unknown, pointer = '#'): PatternedSchema[] {
  if (node === null || typeof node !== 'object') return []
  const found: PatternedSchema[] = []
  const record = node as Record<string, unknown>
  if (typeof record.pattern === 'string') {
    const examples = [
      ...('example' in record ? [record.example] : []),
      ...(Array.isArray(record.examples) ? record.examples : []),
    ]
    found.push({ pointer, pattern: record.pattern, examples })
  }
  for (const [key, value] of Object.entries(record))
    found.push(...patternedSchemas(value, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`))
  return found
}

describe('patterns in the OpenAPI document', () => {
  it('compile as ECMA-262 regexes with the u flag and accept the values they document', () => {
    const schemas = patternedSchemas(document)
    // Tags (in the model update) and collection names (create and update) carry patterns today.
    expect(schemas.length).toBeGreaterThanOrEqual(3)
    for (const { pointer, pattern, examples } of schemas) {
      // A JS flag copied into the pattern text (`…$/u`) makes every value fail a validating client.
      expect(pattern, pointer).not.toMatch(/\/[dgimsuvy]*$/)
      const regex = new RegExp(pattern, 'u')
      // Each patterned field documents an example, so a client's validator is shown a value it must accept.
      expect(examples.length, `${pointer} has no example`).toBeGreaterThan(0)
      for (const example of examples) expect(regex.test(String(example)), `${pointer}: ${String(example)}`).toBe(true)
    }
  })

  it('accept ordinary tag and collection names, refuse commas in tags and control characters in both', () => {
    const byPattern = new Map(
      patternedSchemas(document).map((schema) => [schema.pattern, new RegExp(schema.pattern, 'u')]),
    )
    const tag = [...byPattern.entries()].find(([source]) => source.includes(','))?.[1]
    const collection = [...byPattern.entries()].find(([source]) => !source.includes(','))?.[1]
    expect(tag && collection).toBeTruthy()
    for (const value of ['calibration', 'PLA+', 'Ünïcødé 日本', 'a b']) {
      expect(tag!.test(value), value).toBe(true)
      expect(collection!.test(value), value).toBe(true)
    }
    expect(tag!.test('a,b')).toBe(false)
    expect(collection!.test('Prints, 2026')).toBe(true)
    expect(tag!.test('tab\there')).toBe(false)
    expect(collection!.test('line\nbreak')).toBe(false)
  })
})
