import { z } from '@hono/zod-openapi'
import type { PrinterProviderKind } from '../../core/printers/provider-kind.js'

/** A provider kind's credentials as JSON Schema, for the API's answers and its OpenAPI document. */
export function credentialsJsonSchema(kind: PrinterProviderKind): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(kind.credentials, { io: 'input' })
  return schema
}

const componentName = (kind: PrinterProviderKind) =>
  `${kind.name.replace(/(^|[-_])(\w)/g, (_, __, letter: string) => letter.toUpperCase())}Credentials`

type OpenApiDocument = { components?: { schemas?: object } }

/**
 * Writes the registered providers into an OpenAPI document whose routes know none by name: the
 * printer requests' `provider` becomes an enum of their names, and `PrinterCredentials` any of
 * their credential schemas (`MoonrakerCredentials`, `BambuCredentials`…), so generated clients
 * type both. A runtime that offers no provider (Workers) leaves the document as it is.
 */
export function withPrinterProviders<T extends OpenApiDocument>(document: T, kinds: readonly PrinterProviderKind[]): T {
  const schemas = document.components?.schemas as Record<string, Record<string, unknown>> | undefined
  if (!schemas || kinds.length === 0) return document
  for (const kind of kinds)
    schemas[componentName(kind)] = { ...credentialsJsonSchema(kind), title: `${kind.label} credentials` }
  const names = kinds.map((kind) => kind.name)
  for (const request of ['CreatePrinterRequest', 'UpdatePrinterRequest']) {
    const provider = (schemas[request]?.properties as Record<string, Record<string, unknown>> | undefined)?.provider
    if (provider) provider.enum = names
  }
  const credentials = schemas.PrinterCredentials
  if (credentials) {
    schemas.PrinterCredentials = {
      description: credentials.description,
      anyOf: kinds.map((kind) => ({ $ref: `#/components/schemas/${componentName(kind)}` })),
    }
  }
  return document
}
