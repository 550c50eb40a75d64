import { scryptAsync } from '@noble/hashes/scrypt.js'
import type { PasswordHasher } from '../../core/accounts/password-hasher.js'

/**
 * PBKDF2-HMAC-SHA-256 through Web Crypto, for Cloudflare Workers: scrypt's 32 MiB and ~0.4 s per
 * hash do not fit a Worker's CPU budget, and Web Crypto has no memory-hard KDF. 100,000
 * iterations is the most workerd's PBKDF2 accepts (OWASP asks 600,000; the per-user salt and the
 * sign-in throttling stay). Hashes are `$pbkdf2-sha256$i=100000$<salt>$<hash>` (base64, no
 * padding).
 *
 * Hashes made by the Node adapter (`$scrypt$…`) still verify, in JavaScript (@noble/hashes: about
 * a second of CPU, so only within a paid plan's limit), and are replaced with a PBKDF2 hash at that
 * sign-in (`needsRehash`).
 */
const iterations = 100_000
const keyLength = 32
const pbkdf2Pattern = /^\$pbkdf2-sha256\$i=(\d{1,7})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/
const scryptPattern = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

const encoder = new TextEncoder()
const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/=+$/, '')
const unb64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0))
// NFKC as the scrypt hasher does, so a password typed on another keyboard layout still matches.
const passwordBytes = (password: string) => encoder.encode(password.normalize('NFKC'))

async function pbkdf2(password: string, salt: Uint8Array<ArrayBuffer>, rounds: number, length: number) {
  const key = await crypto.subtle.importKey('raw', passwordBytes(password), 'PBKDF2', false, ['deriveBits'])
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: rounds },
    key,
    length * 8,
  )
  return new Uint8Array(bits)
}

/** Compares without stopping at the first difference, so timing tells nothing about where it is. */
function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number)
  return difference === 0
}

async function verifyScrypt(password: string, match: RegExpExecArray): Promise<boolean> {
  const [, lnText, rText, pText, salt = '', hash = ''] = match
  const [ln, r, p] = [lnText, rText, pText].map(Number) as [number, number, number]
  const expected = unb64(hash)
  if (ln > 20 || expected.length < 16) return false
  const actual = await scryptAsync(passwordBytes(password), unb64(salt), {
    N: 2 ** ln,
    r,
    p,
    dkLen: expected.length,
    maxmem: 2 * 128 * 2 ** ln * r,
  })
  return equalBytes(actual, expected)
}

export function createPbkdf2PasswordHasher(): PasswordHasher {
  return {
    async hash(password) {
      const salt = crypto.getRandomValues(new Uint8Array(16))
      return `$pbkdf2-sha256$i=${iterations}$${b64(salt)}$${b64(await pbkdf2(password, salt, iterations, keyLength))}`
    },
    async verify(password, encoded) {
      const scrypt = scryptPattern.exec(encoded)
      if (scrypt) return verifyScrypt(password, scrypt)
      const [, roundsText, salt, hash] = pbkdf2Pattern.exec(encoded) ?? []
      if (!roundsText || !salt || !hash) return false
      const rounds = Number(roundsText)
      const expected = unb64(hash)
      if (rounds < 1 || rounds > iterations || expected.length < 16) return false
      return equalBytes(await pbkdf2(password, unb64(salt), rounds, expected.length), expected)
    },
    needsRehash(encoded) {
      const match = pbkdf2Pattern.exec(encoded)
      return !match || Number(match[1]) < iterations
    },
  }
}
