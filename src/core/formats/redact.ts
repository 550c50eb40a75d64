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
