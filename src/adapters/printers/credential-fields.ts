import { z } from 'zod'

/**
 * Credential fields several providers share, with the title and description the printer form
 * shows. `format: 'password'` marks a secret: the form hides what is typed. `missing` is the
 * message for a required field left out or empty.
 */
export const apiKeyField = (description: string) => secretField('API key', description)

export const secretField = (title: string, description: string, missing?: string) =>
  z
    .string(missing ? { error: missing } : undefined)
    .min(1)
    .max(500)
    .meta({ title, description, format: 'password' })
