import { jwtVerify, SignJWT } from 'jose'
import { type SigningKeys, verificationKeyFor } from './signing-keys.js'

export const accessTokenIssuer = 'model-vault'
export const accessTokenAudience = 'model-vault-api'
const algorithm = 'HS256'

export interface AccessClaims {
  /** User id. */
  sub: string
  /** Session id: checked against the database on every request, so revocation is immediate. */
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
    .sign(keys.current.secret)
}

/**
 * Verifies signature, algorithm, issuer, audience and lifetime. The algorithm is pinned (no
 * `none`, no key confusion) and `exp` is required: jose accepts a token without `exp` unless
 * told otherwise. Returns null for any invalid token; the reason is not the caller's business.
 */
export async function verifyAccessToken(keys: SigningKeys, token: string, now: Date): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(token, verificationKeyFor(keys), {
      algorithms: [algorithm],
      issuer: accessTokenIssuer,
      audience: accessTokenAudience,
      typ: 'JWT',
      requiredClaims: ['exp', 'iat', 'sub', 'jti', 'sid'],
      currentDate: now,
    })
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return null
    return { sub: payload.sub, sid: payload.sid }
  } catch {
    return null
  }
}
