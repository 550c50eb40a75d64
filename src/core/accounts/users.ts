import type { Kysely } from 'kysely'
import type { Database, Role, UsersTable } from '../db/schema.js'
import { unprocessable, VaultError } from '../errors.js'
import type { AccountsDeps } from './accounts-deps.js'
import { clearPasswordFailures } from './login-throttle.js'
import { passwordLength } from './password-hasher.js'
import type { Principal } from './principal.js'
import { revokeSessionsWhere } from './sessions.js'

/** A user as the API shows it: never the password hash. */
export interface PublicUser {
  id: string
  username: string
  role: Role
  disabled: boolean
  created_at: string
  updated_at: string
}

export const usernamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Usernames are matched without regard to case: "Alice" signs in as "alice". */
export const usernameKey = (username: string) => username.toLowerCase()

export const toPublicUser = (row: UsersTable): PublicUser => ({
  id: row.id,
  username: row.username,
  role: row.role,
  disabled: row.disabled_at !== null,
  created_at: row.created_at,
  updated_at: row.updated_at,
})

/** Length limits only, as NIST SP 800-63B advises; composition rules make passwords worse. */
export function assertAcceptablePassword(password: string, username: string, field = 'password'): void {
  const problem =
    password.length < passwordLength.min
      ? `must be at least ${passwordLength.min} characters long`
      : password.length > passwordLength.max
        ? `must be at most ${passwordLength.max} characters long`
        : usernameKey(password) === usernameKey(username)
          ? 'must not be the username'
          : undefined
  if (problem) throw unprocessable(`The ${field} ${problem}.`, [{ path: `body.${field}`, message: problem }])
}

export async function createUser(
  deps: AccountsDeps,
  input: { username: string; password: string; role: Role; generated?: boolean },
): Promise<PublicUser> {
  if (!usernamePattern.test(input.username)) {
    const message = 'must be 1-64 letters, digits, dots, dashes or underscores, starting with a letter or digit'
    throw unprocessable(`The username ${message}.`, [{ path: 'body.username', message }])
  }
  assertAcceptablePassword(input.password, input.username)
  const now = deps.clock.now().toISOString()
  const row: UsersTable = {
    id: crypto.randomUUID(),
    username: input.username,
    username_key: usernameKey(input.username),
    password_hash: await deps.auth.passwordHasher.hash(input.password),
    password_generated_at: input.generated ? now : null,
    role: input.role,
    disabled_at: null,
    created_at: now,
    updated_at: now,
  }
  const inserted = await deps.database.db
    .insertInto('users')
    .values(row)
    .onConflict((oc) => oc.column('username_key').doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0)
    throw new VaultError('username_taken', `The username "${input.username}" is taken.`)
  return toPublicUser(row)
}

export async function listUsers(db: Kysely<Database>): Promise<PublicUser[]> {
  const rows = await db.selectFrom('users').selectAll().orderBy('username_key').execute()
  return rows.map(toPublicUser)
}

export async function findUserByName(db: Kysely<Database>, username: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('username_key', '=', usernameKey(username)).executeTakeFirst()
}

export async function getUser(db: Kysely<Database>, id: string): Promise<UsersTable> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
  if (!row) throw new VaultError('not_found', `No user has the id ${id}.`)
  return row
}

/** The signed-in user as `/me` shows them, as of the credential's check (a live credential's user is not disabled). */
export const publicUserOf = (principal: Principal): PublicUser => ({
  id: principal.userId,
  username: principal.username,
  role: principal.role,
  disabled: false,
  created_at: principal.account.createdAt,
  updated_at: principal.account.updatedAt,
})

/**
 * Changes a user's role or disables/enables them. Disabling ends their sessions at once.
 * The last active superuser can be neither demoted nor disabled: someone must be able to
 * administer the vault.
 */
export async function updateUser(
  deps: AccountsDeps,
  id: string,
  change: { role?: Role; disabled?: boolean },
): Promise<PublicUser> {
  const now = deps.clock.now()
  const changed = await deps.database.db.transaction().execute(async (trx) => {
    const user = await getUser(trx, id)
    const losesSuperuser =
      user.role === 'superuser' &&
      user.disabled_at === null &&
      ((change.role && change.role !== 'superuser') || change.disabled === true)
    if (losesSuperuser) {
      const others = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('role', '=', 'superuser')
        .where('disabled_at', 'is', null)
        .where('id', '!=', id)
        .executeTakeFirstOrThrow()
      if (Number(others.n) === 0)
        throw new VaultError('last_superuser', 'This is the last active superuser; make another user superuser first.')
    }
    const disabledAt =
      change.disabled === undefined
        ? user.disabled_at
        : change.disabled
          ? (user.disabled_at ?? now.toISOString())
          : null
    const updated: UsersTable = {
      ...user,
      role: change.role ?? user.role,
      disabled_at: disabledAt,
      updated_at: now.toISOString(),
    }
    await trx
      .updateTable('users')
      .set({ role: updated.role, disabled_at: updated.disabled_at, updated_at: updated.updated_at })
      .where('id', '=', id)
      .execute()
    if (change.disabled) await revokeSessionsWhere(trx, { userId: id }, 'user_disabled', now)
    return toPublicUser(updated)
  })
  // A role or a disabled flag counts from the next request, not from the next session check.
  deps.confirmedCredentials.forget()
  return changed
}

/**
 * Sets a new password (admin reset, CLI recovery, or the user's own change) and ends every
 * session of the user except `keepSessionId`. The account's failed-login count is cleared.
 * `generated`: the vault made the password up (CLI), so the user is asked to replace it.
 */
export async function setPassword(
  deps: AccountsDeps,
  id: string,
  password: string,
  options: { keepSessionId?: string | null; field?: string; generated?: boolean } = {},
): Promise<PublicUser> {
  const { keepSessionId, field } = options
  const { db } = deps.database
  const user = await getUser(db, id)
  assertAcceptablePassword(password, user.username, field)
  const now = deps.clock.now()
  const passwordHash = await deps.auth.passwordHasher.hash(password)
  const generatedAt = options.generated ? now.toISOString() : null
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, password_generated_at: generatedAt, updated_at: now.toISOString() })
      .where('id', '=', id)
      .execute()
    await revokeSessionsWhere(trx, { userId: id, exceptSessionId: keepSessionId ?? undefined }, 'password_changed', now)
    await clearPasswordFailures(trx, user.username_key)
  })
  deps.confirmedCredentials.forget()
  return toPublicUser({
    ...user,
    password_hash: passwordHash,
    password_generated_at: generatedAt,
    updated_at: now.toISOString(),
  })
}
