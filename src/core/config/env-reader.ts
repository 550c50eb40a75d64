type Env = Record<string, string | undefined>

/**
 * Reads `VAULT_*` variables and collects every problem instead of throwing at the first, so
 * one message can name each bad variable. A bad value reads as its fallback.
 *
 * Not a zod schema: the configuration is flat strings read into a nested shape whose defaults
 * depend on other variables (paths under `VAULT_DATA_DIR`, S3 variable groups set together), and
 * each message speaks the operator's terms (`VAULT_PORT must be a whole number from 0 to 65535`).
 * A schema would need a transform and a custom message per variable: this reader, with less.
 */
export interface EnvReader {
  /** Trimmed; an empty value counts as unset. */
  text(name: string): string | undefined
  /** As given, untrimmed (passwords may start or end with spaces); empty counts as unset. */
  raw(name: string): string | undefined
  integer(name: string, fallback: number, min: number, max: number): number
  boolean(name: string, fallback: boolean): boolean
  /** An http(s) URL without a trailing slash. */
  httpUrl(name: string): string | undefined
  /** A secret of at least 32 bytes. */
  secret(name: string): string | undefined
  problem(message: string): void
  readonly problems: readonly string[]
}

export function createEnvReader(env: Env): EnvReader {
  const problems: string[] = []
  const text = (name: string) => {
    const value = env[name]?.trim()
    return value === '' ? undefined : value
  }
  return {
    problems,
    problem: (message) => problems.push(message),
    text,
    raw: (name) => env[name] || undefined,
    integer(name, fallback, min, max) {
      const raw = text(name)
      if (raw === undefined) return fallback
      const value = Number(raw)
      if (/^\d+$/.test(raw) && value >= min && value <= max) return value
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`)
      return fallback
    },
    boolean(name, fallback) {
      const raw = text(name)?.toLowerCase()
      if (raw === undefined) return fallback
      if (['1', 'true', 'yes', 'on'].includes(raw)) return true
      if (['0', 'false', 'no', 'off'].includes(raw)) return false
      problems.push(`${name} must be true or false (got "${raw}")`)
      return fallback
    },
    httpUrl(name) {
      const raw = text(name)
      if (raw === undefined) return undefined
      if (URL.canParse(raw) && /^https?:$/.test(new URL(raw).protocol)) return raw.replace(/\/+$/, '')
      problems.push(`${name} must be an http:// or https:// URL (got "${raw}")`)
      return undefined
    },
    secret(name) {
      const value = text(name)
      if (value !== undefined && new TextEncoder().encode(value).length < 32) {
        problems.push(`${name} must be at least 32 bytes long`)
      }
      return value
    },
  }
}
