const encoder = new TextEncoder()

/**
 * The generic format's signature: `sha256=` and the hex HMAC-SHA256, keyed with the webhook's
 * secret, of `<timestamp>.<body>` (the `X-Vault-Timestamp` header's value, a dot, the raw body).
 * Signing the timestamp lets a receiver refuse an old delivery replayed.
 */
export async function signDelivery(secret: string, timestamp: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ])
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(`${timestamp}.${body}`)))
  return `sha256=${Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('')}`
}
