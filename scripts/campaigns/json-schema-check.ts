/**
 * A JSON Schema (2020-12, as OpenAPI 3.1 uses it) checker for the keywords the vault's document
 * uses, resolving `#/components/...` references against the document. A keyword it does not
 * know is reported as a problem, never skipped, so a schema it cannot judge cannot pass silently.
 */
export type JsonSchema = Record<string, unknown>

const annotations = new Set([
  'description',
  'example',
  'examples',
  'default',
  'title',
  'deprecated',
  'readOnly',
  'writeOnly',
  'discriminator',
])

/** The schema a local `$ref` (`#/components/schemas/Problem`) points to in `document`. */
export function resolveRef(document: unknown, ref: string): JsonSchema {
  let node: unknown = document
  for (const segment of ref.replace(/^#\//, '').split('/'))
    node = (node as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')]
  if (!node || typeof node !== 'object') throw new Error(`unresolvable $ref ${ref}`)
  return node as JsonSchema
}

const typeOf = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : typeof value

const hasType = (value: unknown, type: string) =>
  typeOf(value) === type || (type === 'number' && typeOf(value) === 'integer')

/** Every way `value` fails `schema`, as `path: message` lines; empty when it conforms. */
export function checkSchema(document: unknown, schema: JsonSchema, value: unknown, path = '$'): string[] {
  const problems: string[] = []
  const fail = (message: string) => problems.push(`${path}: ${message}`)
  for (const [keyword, rule] of Object.entries(schema)) {
    if (annotations.has(keyword) || keyword.startsWith('x-')) continue
    switch (keyword) {
      case '$ref':
        problems.push(...checkSchema(document, resolveRef(document, rule as string), value, path))
        break
      case 'allOf':
        for (const part of rule as JsonSchema[]) problems.push(...checkSchema(document, part, value, path))
        break
      case 'anyOf':
      case 'oneOf': {
        const passing = (rule as JsonSchema[]).filter((part) => checkSchema(document, part, value, path).length === 0)
        if (passing.length === 0 || (keyword === 'oneOf' && passing.length > 1))
          fail(`matches ${passing.length} of the ${keyword} branches`)
        break
      }
      case 'type': {
        const types = Array.isArray(rule) ? (rule as string[]) : [rule as string]
        if (!types.some((type) => hasType(value, type))) fail(`is ${typeOf(value)}, not ${types.join(' or ')}`)
        break
      }
      case 'enum':
        if (!(rule as unknown[]).some((option) => JSON.stringify(option) === JSON.stringify(value)))
          fail(`${JSON.stringify(value)} is not one of ${JSON.stringify(rule)}`)
        break
      case 'const':
        if (JSON.stringify(rule) !== JSON.stringify(value)) fail(`is not ${JSON.stringify(rule)}`)
        break
      case 'properties':
        if (typeOf(value) === 'object')
          for (const [name, propertySchema] of Object.entries(rule as Record<string, JsonSchema>))
            if (name in (value as object))
              problems.push(
                ...checkSchema(document, propertySchema, (value as Record<string, unknown>)[name], `${path}.${name}`),
              )
        break
      case 'required':
        if (typeOf(value) === 'object')
          for (const name of rule as string[]) if (!(name in (value as object))) fail(`lacks required ${name}`)
        break
      case 'additionalProperties':
        if (typeOf(value) === 'object') {
          const known = new Set(Object.keys((schema.properties as object | undefined) ?? {}))
          for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
            if (known.has(name)) continue
            if (rule === false) fail(`has unknown property ${name}`)
            else if (typeof rule === 'object')
              problems.push(...checkSchema(document, rule as JsonSchema, item, `${path}.${name}`))
          }
        }
        break
      case 'items':
        if (Array.isArray(value))
          value.forEach((item, index) => {
            problems.push(...checkSchema(document, rule as JsonSchema, item, `${path}[${index}]`))
          })
        break
      case 'minItems':
      case 'maxItems':
        if (
          Array.isArray(value) &&
          (keyword === 'minItems' ? value.length < (rule as number) : value.length > (rule as number))
        )
          fail(`has ${value.length} items (${keyword} ${rule})`)
        break
      case 'minLength':
      case 'maxLength':
        if (typeof value === 'string') {
          const length = [...value].length
          if (keyword === 'minLength' ? length < (rule as number) : length > (rule as number))
            fail(`has ${length} characters (${keyword} ${rule})`)
        }
        break
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(rule as string, 'u').test(value)) fail(`does not match ${rule}`)
        break
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        if (typeof value === 'number') {
          const limit = rule as number
          const ok =
            keyword === 'minimum'
              ? value >= limit
              : keyword === 'maximum'
                ? value <= limit
                : keyword === 'exclusiveMinimum'
                  ? value > limit
                  : value < limit
          if (!ok) fail(`${value} breaks ${keyword} ${limit}`)
        }
        break
      case 'format':
        if (
          rule === 'date-time' &&
          typeof value === 'string' &&
          !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)
        )
          fail(`${value} is not a date-time`)
        break
      default:
        fail(`uses the keyword ${keyword}, which this checker does not know`)
    }
  }
  return problems
}
