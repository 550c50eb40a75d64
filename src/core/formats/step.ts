import type { ByteSource } from './types.js'

/** What a STEP file's header says about it; geometry is not read (that needs a CAD kernel). */
export interface StepHeader {
  description: string[]
  name: string | null
  timestamp: string | null
  author: string[]
  organization: string[]
  preprocessor: string | null
  originating_system: string | null
  schema: string[]
}

const headerBytes = 64 * 1024

/**
 * Reads the ISO 10303-21 header (FILE_DESCRIPTION, FILE_NAME, FILE_SCHEMA) from the first
 * 64 KiB. Returns null when the file does not start like a STEP file.
 */
export async function readStepHeader(source: ByteSource): Promise<StepHeader | null> {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(
    await source.read(0, Math.min(source.size, headerBytes) - 1),
  )
  if (!/^\s*ISO-10303-21\s*;/.test(text)) return null
  const header = /HEADER\s*;([\s\S]*?)ENDSEC\s*;/.exec(text)?.[1] ?? ''
  const args = (entity: string) => {
    const match = new RegExp(`${entity}\\s*\\(([\\s\\S]*?)\\)\\s*;`).exec(header)
    return match ? splitTopLevel(match[1]!) : []
  }
  const description = args('FILE_DESCRIPTION')
  const name = args('FILE_NAME')
  const schema = args('FILE_SCHEMA')
  return {
    description: strings(description[0]),
    name: string(name[0]),
    timestamp: string(name[1]),
    author: strings(name[2]),
    organization: strings(name[3]),
    preprocessor: string(name[4]),
    originating_system: string(name[5]),
    schema: strings(schema[0]),
  }
}

/** Splits a STEP parameter list on commas outside quotes and parentheses. */
function splitTopLevel(list: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let current = ''
  for (const char of list) {
    if (char === "'") quoted = !quoted
    if (!quoted && char === '(') depth++
    if (!quoted && char === ')') depth--
    if (!quoted && depth === 0 && char === ',') {
      parts.push(current.trim())
      current = ''
    } else current += char
  }
  if (current.trim()) parts.push(current.trim())
  return parts
}

/** A STEP string literal ('' escapes a quote), or null for `$` and empty strings. */
function string(value: string | undefined): string | null {
  const match = value === undefined ? null : /^'((?:[^']|'')*)'$/.exec(value.trim())
  const text = match?.[1]?.replaceAll("''", "'") ?? ''
  return text === '' ? null : text
}

/** A list of string literals `('a','b')`. */
function strings(value: string | undefined): string[] {
  if (!value) return []
  const inner = value.trim().replace(/^\(|\)$/g, '')
  return splitTopLevel(inner)
    .map(string)
    .filter((s): s is string => s !== null)
}
