import { pbkdf2, randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'
import type { PasswordHasher } from '../../core/accounts/password-hasher.js'

/**
 * scrypt through OpenSSL, off the event loop. Parameters follow OWASP's scrypt table
 * (N=2^15, r=8, p=3: 32 MiB per hash, about 0.4 s here), a row chosen for its modest
 * memory so a small home server can take several sign-ins at once. Hashes are stored in PHC
 * string format: `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64, no padding).
 *
 * PBKDF2 hashes of the Workers build (`$pbkdf2-sha256$i=…`, arriving with a backup restored from
 * there) verify too, and are replaced with scrypt at that sign-in (`needsRehash`).
 */
/** scrypt's cost: N = 2^ln, block size r, parallelism p. */
export interface ScryptCost {
  ln: number
  r: number
  p: number
}

export const owaspScryptCost: ScryptCost = { ln: 15, r: 8, p: 3 }
const keyLength = 32
const pbkdf2Pattern = /^\$pbkdf2-sha256\$i=(\d{1,7})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/
const phcPattern = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

const derive = (password: string, salt: Buffer, length: number, { ln, r, p }: ScryptCost) =>
  new Promise<Buffer>((resolve, reject) => {
    const options: ScryptOptions = { N: 2 ** ln, r, p, maxmem: 2 * 128 * 2 ** ln * r }
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)))
  })

/** A Workers hash (pbkdf2-password-hasher.ts): PBKDF2-HMAC-SHA-256 of the NFKC password. */
async function verifyPbkdf2(password: string, [, roundsText, salt, hash]: RegExpExecArray): Promise<boolean> {
  const rounds = Number(roundsText)
  const expected = Buffer.from(hash ?? '', 'base64')
  if (rounds < 1 || rounds > 10_000_000 || expected.length < 16) return false
  const actual = await new Promise<Buffer>((resolve, reject) =>
    pbkdf2(
      password.normalize('NFKC'),
      Buffer.from(salt ?? '', 'base64'),
      rounds,
      expected.length,
      'sha256',
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  )
  return timingSafeEqual(actual, expected)
}

const b64 = (buffer: Buffer) => buffer.toString('base64').replace(/=+$/, '')

/**
 * `current` is the cost new hashes get and older ones are raised to. Only `owaspScryptCost` is for
 * real installs; a lower one is for test vaults, where every start and sign-in would otherwise
 * spend 0.4 s of CPU (Django's test settings swap in a fast hasher for the same reason).
 */
export function createScryptPasswordHasher(current: ScryptCost = owaspScryptCost): PasswordHasher {
  return {
    async hash(password) {
      const salt = randomBytes(16)
      const key = await derive(password, salt, keyLength, current)
      return `$scrypt$ln=${current.ln},r=${current.r},p=${current.p}$${b64(salt)}$${b64(key)}`
    },
    async verify(password, encoded) {
      const workers = pbkdf2Pattern.exec(encoded)
      if (workers) return verifyPbkdf2(password, workers)
      const [, lnText, rText, pText, salt, hash] = phcPattern.exec(encoded) ?? []
      if (!salt || !hash) return false
      const [ln, r, p] = [lnText, rText, pText].map(Number) as [number, number, number]
      const expected = Buffer.from(hash, 'base64')
      if (ln > 20 || expected.length < 16) return false
      const actual = await derive(password, Buffer.from(salt, 'base64'), expected.length, { ln, r, p })
      return timingSafeEqual(actual, expected)
    },
    needsRehash(encoded) {
      const match = phcPattern.exec(encoded)
      return !match || Number(match[1]) < current.ln || Number(match[2]) < current.r || Number(match[3]) < current.p
    },
  }
}
