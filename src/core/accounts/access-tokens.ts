import { jwtVerify, SignJWT } from 'jose'
import type { MaybePromise } from '../runtime/maybe-async.js'
import { type SigningKeys, verificationKeyFor } from './signing-keys.js'

export const accessTokenIssuer = 'model-vault'
export const accessTokenAudience = 'model-vault-api'
const algorithm = 'HS256'

export interface AccessClaims {
  /** User id. */
  sub: string
  /** Session id: checked against the database (within `VAULT_SESSION_RECHECK_MS`), so revocation holds. */
  sid: string
}

export async function signAccessToken(
  keys: SigningKeys,
  claims: AccessClaims,
  now: Date,
  ttlSeconds: number,
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000)
  return new SignJWT({ sid: claims.sid })
    .setProtectedHeader({ alg: algorithm, kid: keys.current.kid, typ: 'JWT' })
    .setIssuer(accessTokenIssuer)
    .setAudience(accessTokenAudience)
    .setSubject(claims.sub)
    .setJti(crypto.randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(keys.current.key)
}

/** How many verified tokens each key ring remembers (a few MiB at most). */
const verifiedTokensKept = 10_000

/**
 * Tokens already verified under a key ring, with their expiry: a client sends the same token on
 * every request for its lifetime, and verifying it again each time (a Web Crypto HMAC, which Node
 * runs on the libuv thread pool behind file writes) was the largest cost of a cheap request.
 * Only what jose accepted is kept, under the exact token text, and a new ring (a key rotated
 * out) starts empty. The session is still checked (`confirmedCredentials`), so revocation is unchanged.
 */
const verifiedTokens = new WeakMap<SigningKeys, Map<string, AccessClaims & { expiresAtMs: number }>>()

/**
 * Verifies signature, algorithm, issuer, audience and lifetime. The algorithm is pinned (no
 * `none`, no key confusion) and `exp` is required: jose accepts a token without `exp` unless
 * told otherwise. Returns null for any invalid token; the reason is not the caller's business.
 * A token verified before is answered at once.
 */
export function verifyAccessToken(keys: SigningKeys, token: string, now: Date): MaybePromise<AccessClaims | null> {
  const verified = verifiedTokens.get(keys) ?? new Map()
  verifiedTokens.set(keys, verified)
  const known = verified.get(token)
  if (known) {
    if (now.getTime() < known.expiresAtMs) return { sub: known.sub, sid: known.sid }
    verified.delete(token)
    return null
  }
  return verifyAndRemember(verified, keys, token, now)
}

async function verifyAndRemember(
  verified: Map<string, AccessClaims & { expiresAtMs: number }>,
  keys: SigningKeys,
  token: string,
  now: Date,
): Promise<AccessClaims | null> {
  const claims = await verifyWithJose(keys, token, now)
  if (claims) {
    verified.set(token, claims)
    // Map order is insertion order: the oldest goes first.
    if (verified.size > verifiedTokensKept) verified.delete(verified.keys().next().value as string)
  }
  return claims && { sub: claims.sub, sid: claims.sid }
}

async function verifyWithJose(
  keys: SigningKeys,
  token: string,
  now: Date,
): Promise<(AccessClaims & { expiresAtMs: number }) | null> {
  try {
    const { payload } = await jwtVerify(token, verificationKeyFor(keys), {
      algorithms: [algorithm],
      issuer: accessTokenIssuer,
      audience: accessTokenAudience,
      typ: 'JWT',
      requiredClaims: ['exp', 'iat', 'sub', 'jti', 'sid'],
      currentDate: now,
    })
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || payload.exp === undefined) return null
    return { sub: payload.sub, sid: payload.sid, expiresAtMs: payload.exp * 1000 }
  } catch {
    return null
  }
}
