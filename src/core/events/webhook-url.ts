/**
 * Why `url` cannot be a webhook's address, or null when it can: an absolute http(s) URL without
 * user name or password (fetch refuses those; ntfy's access tokens go in the topic's settings).
 * Addresses on the local network are allowed on purpose: ntfy and home automation often live there.
 */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'is not an absolute URL'
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http:// or https:// URL'
  if (parsed.username || parsed.password) return 'must not carry a user name or password'
  return null
}
