import { redactGcodeSecrets } from '../formats/redact.js'
import { cleanFilename, formatOf, isBinaryGcodeName } from './file-formats.js'

/**
 * The bytes of an upload as the vault stores them: G-code with the value of every
 * secret-bearing setting (print host API keys, passwords, user names) replaced by
 * "[redacted]" as it streams in, so the secret never reaches the blob store; every other
 * file as sent, binary G-code too (its blocks carry checksums, and its settings are deflated). The replacement is deterministic, so the same G-code uploaded again stores
 * the same bytes under the same hash and is a duplicate; the upload limit applies to the
 * stored bytes.
 */
export function storedForm(body: ReadableStream<Uint8Array>, filename: string): ReadableStream<Uint8Array> {
  const name = cleanFilename(filename)
  return formatOf(name) === 'gcode' && !isBinaryGcodeName(name) ? body.pipeThrough(redactGcodeSecrets()) : body
}
