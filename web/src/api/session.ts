import createClient from 'openapi-fetch'
import { apiBaseUrl } from './base-url'
import type { components, paths } from './schema'

type TokenPair = components['schemas']['RefreshResponse']

/**
 * - `restoring`: a refresh token is stored (a reload, another tab) but no access token yet.
 * - `signed-out`: `expired` when the vault ended the session (expired, revoked or reused refresh
 *   token), `signed-out` when the user signed out.
 */
export type SessionState =
  | { status: 'restoring' }
  | { status: 'signed-in' }
  | { status: 'signed-out'; reason?: 'expired' | 'signed-out' }

/** The refresh token outlives a reload, and is shared by this vault's tabs. */
const refreshTokenKey = 'model-vault.refresh-token'
const refreshLockName = 'model-vault.refresh'

/** The access token lives in memory only. */
let accessToken: string | undefined
let state: SessionState = localStorage.getItem(refreshTokenKey) ? { status: 'restoring' } : { status: 'signed-out' }
const listeners = new Set<() => void>()

function setState(next: SessionState): void {
  state = next
  for (const listener of listeners) listener()
}

/** The session as an external store, for `useSyncExternalStore`. */
export const sessionStore = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener)
    return () => listeners.delete(listener)
  },
  getState: (): SessionState => state,
}

export const getAccessToken = (): string | undefined => accessToken

/** Keeps a pair from sign-in or refresh. */
export function startSession(pair: TokenPair): void {
  accessToken = pair.access_token
  localStorage.setItem(refreshTokenKey, pair.refresh_token)
  setState({ status: 'signed-in' })
}

/** Forgets the tokens here and in the other tabs (they hear the storage change). */
export function endSession(reason: 'expired' | 'signed-out'): void {
  accessToken = undefined
  localStorage.removeItem(refreshTokenKey)
  if (state.status !== 'signed-out') setState({ status: 'signed-out', reason })
}

// Another tab signed out (or its refresh was refused): this tab's session is over too.
window.addEventListener('storage', (event) => {
  if (event.key === refreshTokenKey && event.newValue === null && state.status !== 'signed-out') {
    accessToken = undefined
    setState({ status: 'signed-out', reason: 'signed-out' })
  }
})

/** Refresh goes around the auth middleware: its 401 means "session over", never "refresh and retry". */
const authClient = createClient<paths>({ baseUrl: apiBaseUrl })

let refreshing: Promise<boolean> | undefined

/**
 * Exchanges the stored refresh token for a new pair. Refresh tokens rotate and a reused one
 * revokes the session, so refreshes are serialised: one at a time in this tab (callers share it),
 * and across tabs by a Web Lock where the browser offers one (secure contexts), each reading the
 * token the previous one stored. A 401 ends the session; a network failure or 5xx keeps it, so
 * a restart or restore of the vault does not sign anyone out. Resolves whether a new access token
 * is in place.
 */
export function refreshSession(): Promise<boolean> {
  const pending = refreshing ?? ('locks' in navigator ? exchangeInLock() : exchange())
  refreshing = pending
  const settled = () => {
    if (refreshing === pending) refreshing = undefined
  }
  pending.then(settled, settled)
  return pending
}

const exchangeInLock = () =>
  new Promise<boolean>((resolve, reject) => {
    // The lock is held until the exchange settles: the callback returns its promise.
    navigator.locks.request(refreshLockName, () => exchange().then(resolve, reject))
  })

async function exchange(): Promise<boolean> {
  const refreshToken = localStorage.getItem(refreshTokenKey)
  if (!refreshToken) {
    endSession('expired')
    return false
  }
  const result = await authClient
    .POST('/api/v1/auth/refresh', { body: { refresh_token: refreshToken } })
    .catch(() => undefined)
  if (result?.data) {
    startSession(result.data)
    return true
  }
  if (result?.response.status === 401 || result?.response.status === 422) endSession('expired')
  return false
}

// A stored session (a reload, a new tab) is restored as soon as the app's code runs, while React
// draws the first page, rather than after it: the page's first calls wait for it in the client.
if (state.status === 'restoring') void refreshSession()
