import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { base64url } from 'jose'
import { VaultError } from '../errors.js'

/** Where a page ended: the last item's sort value and id. */
export interface CursorPosition {
  value: string | number
  id: string
}

export const invalidCursor = (detail: string) => new VaultError('invalid_cursor', detail)

/**
 * Opaque, tamper-evident paging cursors: `base64url(JSON [value, id]) . base64url(HMAC)`.
 * The HMAC (SHA-256, truncated to 128 bits, keyed with the token signing secret) also
 * covers `scope`, the canonical form of the query the cursor was made for (sort, order and
 * filters), so a cursor replayed against another query, edited, or made by hand is refused
 * with 400 `invalid_cursor` instead of silently paging through something else. Cursors stay
 * valid as long as the signing secret does.
 */
export function encodeCursor(key: Uint8Array, scope: string, position: CursorPosition): string {
  const payload = base64url.encode(JSON.stringify([position.value, position.id]))
  return `${payload}.${base64url.encode(mac(key, scope, payload))}`
}

export function decodeCursor(key: Uint8Array, scope: string, cursor: string): CursorPosition {
  const [payload, signature, ...rest] = cursor.split('.')
  if (!payload || !signature || rest.length > 0)
    throw invalidCursor('The cursor is malformed; use `next_cursor` from a previous page as it is.')
  let given: Uint8Array
  try {
    given = base64url.decode(signature)
  } catch {
    throw invalidCursor('The cursor is malformed; use `next_cursor` from a previous page as it is.')
  }
  const expected = mac(key, scope, payload)
  if (!sameBytes(given, expected)) {
    throw invalidCursor(
      'The cursor was altered, or belongs to a query with other filters, sort or order; start again without `cursor`.',
    )
  }
  const position = JSON.parse(new TextDecoder().decode(base64url.decode(payload))) as unknown
  if (
    !Array.isArray(position) ||
    position.length !== 2 ||
    typeof position[1] !== 'string' ||
    !['string', 'number'].includes(typeof position[0])
  ) {
    throw invalidCursor('The cursor is malformed.')
  }
  return { value: position[0] as string | number, id: position[1] }
}

/** The HMAC keyed with each signing secret, cloned per use: keying it hashes two blocks, a third of a cursor's cost. */
const keyedMacs = new WeakMap<Uint8Array, ReturnType<typeof hmac.create>>()

/**
 * Computed in JavaScript, synchronously: Web Crypto's HMAC on Node is a job on the libuv thread
 * pool, where a page of the library would wait behind every upload's file writes.
 */
function mac(key: Uint8Array, scope: string, payload: string): Uint8Array {
  let keyed = keyedMacs.get(key)
  if (keyed === undefined) {
    keyed = hmac.create(sha256, key)
    keyedMacs.set(key, keyed)
  }
  return keyed
    .clone()
    .update(
      new TextEncoder().encode(`model-vault cursor v1
${scope}
${payload}`),
    )
    .digest()
    .slice(0, 16)
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (const [i, byte] of a.entries()) difference |= byte ^ (b[i] ?? 0)
  return difference === 0
}
