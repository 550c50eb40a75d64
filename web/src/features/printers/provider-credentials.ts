import type { PrinterProvider } from './types'

/** One credential field of a provider, read from its JSON Schema. */
export interface CredentialField {
  name: string
  title: string
  description?: string
  /** A secret: its input hides what is typed. */
  secret: boolean
  /** The provider cannot reach a printer without it. */
  required: boolean
}

interface CredentialsSchema {
  properties?: Record<string, { title?: string; description?: string; format?: string }>
  required?: string[]
}

/** The credential fields `provider` takes, in the order its schema lists them. */
export function credentialFieldsOf(provider: PrinterProvider | undefined): CredentialField[] {
  const schema = (provider?.credentials ?? {}) as CredentialsSchema
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    title: property.title ?? name,
    description: property.description,
    secret: property.format === 'password',
    required: schema.required?.includes(name) ?? false,
  }))
}

/**
 * What was entered for `fields`, without the empty ones; names and serial numbers lose the spaces
 * a copy and paste brings, secrets stay as typed.
 */
export function enteredCredentials(fields: CredentialField[], values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    fields.flatMap(({ name, secret }) => {
      const value = secret ? (values[name] ?? '') : (values[name] ?? '').trim()
      return value ? [[name, value]] : []
    }),
  )
}
