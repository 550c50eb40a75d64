import type { Logger } from '../runtime/logger.js'
import type { AccountsDeps } from './accounts-deps.js'
import { randomToken } from './secrets.js'
import { createUser } from './users.js'

/**
 * On an install with no users, creates the first superuser from `VAULT_ADMIN_USERNAME` /
 * `VAULT_ADMIN_PASSWORD`. Without a password it generates a strong one and logs it once:
 * the only time it is ever shown. Does nothing once any user exists.
 */
export async function ensureFirstSuperuser(
  deps: AccountsDeps,
  logger: Logger,
  configured: { username?: string; password?: string },
): Promise<void> {
  const existing = await deps.database.db.selectFrom('users').select('id').limit(1).executeTakeFirst()
  if (existing) return
  const username = configured.username ?? 'admin'
  const password = configured.password ?? randomToken(18)
  try {
    await createUser(deps, { username, password, role: 'superuser', generated: !configured.password })
  } catch (error) {
    // Another process sharing the database created it first.
    if ((error as { code?: string }).code === 'username_taken') return
    throw error
  }
  if (configured.password) logger.info('created the first superuser', { username })
  else {
    logger.warn(
      'created the first superuser with a generated password; it is shown only this once: sign in and change it',
      {
        username,
        password,
      },
    )
  }
}
