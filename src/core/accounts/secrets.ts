import { base64url } from 'jose'
import type { CreateSha256 } from '../blobs/hasher.js'

/** `bytes` random bytes from the platform CSPRNG, base64url-encoded (no padding). */
export function randomToken(bytes: number): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)))
}

/** Hex SHA-256 of a UTF-8 string: how refresh tokens and API keys are stored. */
export function sha256Hex(createSha256: CreateSha256, value: string): string {
  const hash = createSha256()
  hash.update(new TextEncoder().encode(value))
  return hash.digestHex()
}

/** Compares two strings in time that depends only on their length, not on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}
