/**
 * What an API key may be used for. A key acts with the intersection of its scopes and its
 * owner's role: scopes only ever take away.
 *
 * - `read`: look at everything the role shows (every GET but backups, API keys and accounts).
 * - `upload`: ingest files, as slicer hooks do. Nothing else, so a leaked hook key cannot read,
 *   change or delete the library.
 * - `print`: read printers and their dispatches, send files to printers, confirm a bed clear.
 * - `manage`: change the library (models, files, tags, collections, presets; edits and deletes).
 * - `full`: everything the role allows, including backups, restores, API keys, printer setup,
 *   the password and user administration. Keys made before scopes existed have it.
 *
 * The scopes are separate, not nested (`manage` does not hold `read`), so each one is exactly
 * what it says; a key that needs several gets several.
 */
export const apiKeyScopes = ['read', 'upload', 'print', 'manage', 'full'] as const

export type ApiKeyScope = (typeof apiKeyScopes)[number]

/**
 * The scopes an operation accepts, any one of which will do (`full` always does), or `any`:
 * every credential, whatever its scopes (who am I, sign out).
 */
export type ScopeRequirement = 'any' | readonly [ApiKeyScope, ...ApiKeyScope[]]

/** What a password session carries: people signed in with their password may do all their role allows. */
export const everyScope: readonly ApiKeyScope[] = ['full']

export const isApiKeyScope = (value: string): value is ApiKeyScope =>
  (apiKeyScopes as readonly string[]).includes(value)

/** Whether a credential with `held` may call an operation that accepts any one of `accepted`. */
export const holdsScope = (held: readonly ApiKeyScope[], accepted: readonly ApiKeyScope[]): boolean =>
  held.includes('full') || accepted.some((scope) => held.includes(scope))

/**
 * Without repeats, in the order of `apiKeyScopes`; `full` alone when it is among them, since it
 * holds the rest.
 */
export function normaliseScopes(scopes: readonly ApiKeyScope[]): ApiKeyScope[] {
  return scopes.includes('full') ? ['full'] : apiKeyScopes.filter((scope) => scopes.includes(scope))
}

/** Stored as a space-separated list, as OAuth writes a `scope`. */
export const formatScopes = (scopes: readonly ApiKeyScope[]): string => normaliseScopes(scopes).join(' ')

/** The stored list back; a word the vault no longer knows grants nothing. */
export const parseScopes = (text: string): ApiKeyScope[] => normaliseScopes(text.split(' ').filter(isApiKeyScope))
