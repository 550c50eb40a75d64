/** What a secret-bearing setting's value is replaced with. */
export const REDACTED = '[redacted]'

const SECRET_KEY = /(api_?key|apikey|password|secret|token|printhost_(api)?key|authorization|cookie|user)/i

/**
 * Whether a slicer setting may carry a credential (print host API keys, passwords, tokens,
 * user names). Slicers embed their whole configuration in 3MF projects and G-code, so these
 * must never reach the catalogue.
 */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key)
}

/** A copy of `settings` with the value of every secret-bearing key replaced by REDACTED. */
export function redactSettings(settings: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, isSecretKey(key) ? REDACTED : value]))
}

/** Longest line checked for a setting; longer lines (never a `; key = value` setting) pass unchanged. */
const MAX_SETTING_LINE = 64 * 1024
const NEWLINE = 0x0a
const SEMICOLON = 0x3b
const EQUALS = 0x3d
/** `; key = value`; keys have no spaces, which also keeps the match linear in the line's length. */
const SETTING_LINE = /^(;\s*([^=\s]+)\s*=[ \t]?)(.*?)(\r?)$/

/**
 * A stream that copies G-code unchanged except the value of every secret-bearing setting
 * (`; printhost_apikey = …`, see isSecretKey) in its comment lines, which becomes REDACTED.
 * Empty values stay empty. The same input always gives the same output, so uploading the
 * same G-code twice still stores the same bytes. Moves, temperatures, thumbnails and every
 * other line keep their exact bytes, so the result prints as the original would.
 */
export function redactGcodeSecrets(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder()
  const encoder = new TextEncoder()
  /** Within a line longer than MAX_SETTING_LINE, passed on unread up to its newline. */
  let skipping = false
  /**
   * The line `bytes[start, end)` as it should be stored, or undefined to keep its bytes. Works on
   * offsets so that the common line (a move, not a comment) allocates nothing: G-code has millions.
   */
  const redactLine = (bytes: Uint8Array, start: number, end: number): Uint8Array | undefined => {
    let first = start
    while (first < end && (bytes[first] === 0x20 || bytes[first] === 0x09)) first++
    if (bytes[first] !== SEMICOLON || end - start > MAX_SETTING_LINE) return undefined
    // Most comments (`;TYPE:Perimeter`, `;LAYER_CHANGE`) are no setting: skip them without decoding.
    let equals = first
    while (equals < end && bytes[equals] !== EQUALS) equals++
    if (equals === end) return undefined
    const match = SETTING_LINE.exec(decoder.decode(bytes.subarray(first, end)))
    if (match === null || match[3] === '' || match[3] === REDACTED || !isSecretKey(match[2]!)) return undefined
    return encoder.encode(`${decoder.decode(bytes.subarray(start, first))}${match[1]}${REDACTED}${match[4]}`)
  }
  /** Emits the complete lines of `bytes` and returns what follows the last newline. */
  const emitLines = (bytes: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>): Uint8Array => {
    let copiedUpTo = 0
    for (let start = 0; start < bytes.length; ) {
      const end = bytes.indexOf(NEWLINE, start)
      if (end === -1) {
        if (copiedUpTo < start) controller.enqueue(bytes.subarray(copiedUpTo, start))
        return bytes.slice(start)
      }
      const replaced = redactLine(bytes, start, end)
      if (replaced !== undefined) {
        if (copiedUpTo < start) controller.enqueue(bytes.subarray(copiedUpTo, start))
        controller.enqueue(replaced)
        copiedUpTo = end
      }
      start = end + 1
    }
    if (copiedUpTo < bytes.length) controller.enqueue(bytes.subarray(copiedUpTo))
    return new Uint8Array(0)
  }
  /** The start of a line whose newline has not arrived, in the chunks it came in (joined only once it ends). */
  let pending: Uint8Array[] = []
  let pendingLength = 0
  return new TransformStream({
    transform(chunk, controller) {
      let bytes = chunk
      if (skipping) {
        const end = bytes.indexOf(NEWLINE)
        if (end === -1) {
          controller.enqueue(bytes)
          return
        }
        controller.enqueue(bytes.subarray(0, end + 1))
        bytes = bytes.subarray(end + 1)
        skipping = false
      }
      if (bytes.indexOf(NEWLINE) === -1) {
        pending.push(bytes.slice())
        pendingLength += bytes.length
      } else {
        if (pendingLength > 0) {
          const joined = new Uint8Array(pendingLength + bytes.length)
          let at = 0
          for (const part of [...pending, bytes]) {
            joined.set(part, at)
            at += part.length
          }
          bytes = joined
        }
        const rest = emitLines(bytes, controller)
        pending = [rest]
        pendingLength = rest.length
      }
      if (pendingLength > MAX_SETTING_LINE) {
        for (const part of pending) controller.enqueue(part)
        pending = []
        pendingLength = 0
        skipping = true
      }
    },
    flush(controller) {
      if (pendingLength === 0) return
      const line = new Uint8Array(pendingLength)
      let at = 0
      for (const part of pending) {
        line.set(part, at)
        at += part.length
      }
      controller.enqueue(redactLine(line, 0, line.length) ?? line)
    },
  })
}
