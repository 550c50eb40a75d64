import createClient, { type Middleware } from 'openapi-fetch'
import { apiBaseUrl } from './base-url'
import type { paths } from './schema'
import { getAccessToken, refreshSession, sessionStore } from './session'

/** Calls whose 401 is an answer about credentials, not an expired access token. */
const credentialPaths = new Set(['/api/v1/auth/login', '/api/v1/auth/refresh'])

/** A copy of each request in flight, by openapi-fetch's request id, to send again after a refresh. */
const retryCopies = new Map<string, Request>()

const bearer = (token: string) => `Bearer ${token}`

/**
 * Adds the access token to every call, and on a 401 refreshes the session once (shared by every
 * call that failed meanwhile) and sends the call again. When the refresh is refused the session
 * ends, and the 401 goes back to the caller.
 */
const authMiddleware: Middleware = {
  async onRequest({ request, schemaPath, id }) {
    if (credentialPaths.has(schemaPath)) return undefined
    if (sessionStore.getState().status === 'restoring') await refreshSession()
    const token = getAccessToken()
    if (token) request.headers.set('Authorization', bearer(token))
    retryCopies.set(id, request.clone())
    return request
  },
  async onResponse({ request, response, id, options }) {
    const copy = retryCopies.get(id)
    retryCopies.delete(id)
    if (response.status !== 401 || !copy) return undefined
    // Another call may have refreshed while this one was on its way: then just send it again.
    const current = getAccessToken()
    const refreshed = current !== undefined && request.headers.get('Authorization') !== bearer(current)
    if (!refreshed && !(await refreshSession())) return undefined
    const token = getAccessToken()
    if (!token) return undefined
    copy.headers.set('Authorization', bearer(token))
    return options.fetch(copy)
  },
  onError({ id }) {
    retryCopies.delete(id)
  },
}

/** The one client every feature calls the API with; typed from the vault's own OpenAPI document. */
export const api = createClient<paths>({ baseUrl: apiBaseUrl })
api.use(authMiddleware)
