import { exitWith } from '../adapters/node/node-config.js'
import type { Role } from '../core/accounts/roles.js'
import { randomToken } from '../core/accounts/secrets.js'
import { createUser, findUserByName, listUsers, setPassword, updateUser } from '../core/accounts/users.js'
import type { Deps } from '../core/deps.js'

/** How `users create` and `users reset-password` get the password: generated and shown once, or from stdin. */
export interface PasswordSource {
  passwordStdin: boolean
}

/** `model-vault users list`. */
export async function listUsersCommand(deps: Deps): Promise<void> {
  for (const user of await listUsers(deps.database.db)) {
    console.log(`${user.username}\t${user.role}${user.disabled ? '\tdisabled' : ''}`)
  }
}

/** The new password, and the line that shows a generated one (once). */
async function newPassword({ passwordStdin }: PasswordSource): Promise<{ password: string; show: string }> {
  if (passwordStdin) return { password: await readPasswordFromStdin(), show: '' }
  const password = randomToken(18)
  return { password, show: `\nPassword (shown only now): ${password}` }
}

/** `model-vault users create`: for when nobody can sign in to create one. */
export async function createUserCommand(
  deps: Deps,
  username: string,
  options: PasswordSource & { role: Role },
): Promise<void> {
  const { password, show } = await newPassword(options)
  const user = await createUser(deps, {
    username,
    password,
    role: options.role,
    generated: !options.passwordStdin,
  }).catch(failWithDetail)
  console.log(`Created ${user.role} "${user.username}".${show}`)
}

/** `model-vault users reset-password`: a new password, the user's sessions ended, their failed sign-ins cleared. */
export async function resetPasswordCommand(
  deps: Deps,
  username: string,
  options: PasswordSource & { enable: boolean },
): Promise<void> {
  const user = await findUserByName(deps.database.db, username)
  if (!user) exitWith(`No user is named "${username}".`)
  const { password, show } = await newPassword(options)
  await setPassword(deps, user.id, password, { generated: !options.passwordStdin }).catch(failWithDetail)
  if (options.enable && user.disabled_at !== null) await updateUser(deps, user.id, { disabled: false })
  const disabledNote =
    user.disabled_at !== null && !options.enable ? '\nThe account is disabled; add --enable to re-enable it.' : ''
  console.log(`Reset the password of "${user.username}" and ended their sessions.${show}${disabledNote}`)
}

async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

/** Domain errors (taken username, short password) carry a sentence meant for people. */
function failWithDetail(error: unknown): never {
  if (error instanceof Error && 'code' in error) exitWith(error.message)
  throw error
}
