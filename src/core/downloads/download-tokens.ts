import { errors, jwtVerify, SignJWT } from 'jose'
import { accessTokenIssuer } from '../accounts/access-tokens.js'
import { type SigningKeys, verificationKeyFor } from '../accounts/signing-keys.js'

/**
 * Download tokens are signed with the same keys as access tokens but carry their own audience and
 * `typ`, and each verifier pins both: a download token is never accepted as a bearer token, nor an
 * access token as a download link.
 */
export const downloadTokenAudience = 'model-vault-download'
const downloadTokenType = 'vault-download+jwt'
const algorithm = 'HS256'

/**
 * What a download token says when it checks out, or why it does not. `issuedBy` is the user who
 * asked for the link (null in tokens signed before links named their maker).
 */
export type DownloadTokenCheck =
  | { valid: true; subject: string; issuedBy: string | null }
  | { valid: false; reason: 'expired' | 'invalid' }

/**
 * A token that lets whoever holds it read one thing (`sub`: a file id, or a model's package) until
 * `exp`, naming the user who asked for it (`uid`), whose disabling ends it.
 */
export async function signDownloadToken(
  keys: SigningKeys,
  subject: string,
  issuedBy: string,
  now: Date,
  ttlSeconds: number,
): Promise<{ token: string; expiresAt: Date }> {
  const issuedAt = Math.floor(now.getTime() / 1000)
  const expiresAt = issuedAt + ttlSeconds
  const token = await new SignJWT({ uid: issuedBy })
    .setProtectedHeader({ alg: algorithm, kid: keys.current.kid, typ: downloadTokenType })
    .setIssuer(accessTokenIssuer)
    .setAudience(downloadTokenAudience)
    .setSubject(subject)
    .setJti(crypto.randomUUID())
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(keys.current.key)
  return { token, expiresAt: new Date(expiresAt * 1000) }
}

/**
 * Verifies signature, algorithm, `typ`, issuer, audience and lifetime. jose checks the signature
 * before the claims, so `expired` is only ever said of a token the vault really signed.
 */
export async function verifyDownloadToken(keys: SigningKeys, token: string, now: Date): Promise<DownloadTokenCheck> {
  try {
    const { payload } = await jwtVerify(token, verificationKeyFor(keys), {
      algorithms: [algorithm],
      issuer: accessTokenIssuer,
      audience: downloadTokenAudience,
      typ: downloadTokenType,
      requiredClaims: ['exp', 'iat', 'sub', 'jti'],
      currentDate: now,
    })
    if (typeof payload.sub !== 'string') return { valid: false, reason: 'invalid' }
    return { valid: true, subject: payload.sub, issuedBy: typeof payload.uid === 'string' ? payload.uid : null }
  } catch (error) {
    return { valid: false, reason: error instanceof errors.JWTExpired ? 'expired' : 'invalid' }
  }
}
