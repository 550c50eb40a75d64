import { changeOwnPassword, login } from '../../core/accounts/login.js'
import { refreshSession, revokeSession } from '../../core/accounts/sessions.js'
import { publicUserOf } from '../../core/accounts/users.js'
import { VaultError } from '../../core/errors.js'
import { createRouter } from '../app-env.js'
import { loginRoute, logoutRoute, refreshRoute } from './auth.routes.js'
import { changePasswordRoute, getMeRoute } from './me.routes.js'

/** Token answers must not be cached by any intermediary (RFC 6749 §5.1). */
const noStore = { 'Cache-Control': 'no-store' }

export const authRouter = createRouter()
  .openapi(loginRoute, async (c) => {
    const { username, password, api_key } = c.req.valid('json')
    // The schema lets exactly one of the two credentials through.
    const credentials = password !== undefined ? { username, password } : { username, api_key: api_key ?? '' }
    return c.json(await login(c.var.deps, credentials, c.var.deps.getClientAddress(c)), 200, noStore)
  })
  .openapi(refreshRoute, async (c) =>
    c.json(await refreshSession(c.var.deps, c.req.valid('json').refresh_token), 200, noStore),
  )
  .openapi(logoutRoute, async (c) => {
    const { sessionId } = c.var.principal
    if (sessionId === null)
      throw new VaultError(
        'no_session',
        'An API key has no session to end; revoke the key (DELETE /api/v1/api-keys/{id}) to stop it working.',
      )
    await revokeSession(c.var.deps, sessionId, 'logout')
    return c.body(null, 204)
  })
  .openapi(getMeRoute, async (c) => {
    const principal = c.get('principal')
    return c.json(
      {
        user: publicUserOf(principal),
        session_id: principal.sessionId,
        api_key_id: principal.apiKeyId,
        scopes: [...principal.scopes],
        password_generated: principal.account.passwordGenerated,
      },
      200,
    )
  })
  .openapi(changePasswordRoute, async (c) => {
    const { current_password, new_password } = c.req.valid('json')
    await changeOwnPassword(
      c.var.deps,
      c.var.principal,
      { current: current_password, next: new_password },
      c.var.deps.getClientAddress(c),
    )
    return c.body(null, 204)
  })
