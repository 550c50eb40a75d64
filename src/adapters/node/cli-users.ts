import { type Role, roles } from '../../core/accounts/roles.js'
import { randomToken } from '../../core/accounts/secrets.js'
import { createUser, findUserByName, listUsers, setPassword, updateUser } from '../../core/accounts/users.js'
import type { Deps } from '../../core/deps.js'
import { exitWith } from './node-config.js'

/** `model-vault users …`: create users and reset passwords when nobody can sign in. */
export async function runUsersCommand(
  deps: Deps,
  command: string,
  username: string | undefined,
  options: { role: string; 'password-stdin': boolean; enable: boolean },
): Promise<void> {
  if (command === 'list') {
    for (const user of await listUsers(deps.database.db)) {
      console.log(`${user.username}\t${user.role}${user.disabled ? '\tdisabled' : ''}`)
    }
    return
  }
  if (!username || !['create', 'reset-password'].includes(command)) return exitWith(`unknown command: users ${command}`)
  const generated = !options['password-stdin']
  const password = generated ? randomToken(18) : await readPasswordFromStdin()
  const show = options['password-stdin'] ? '' : `\nPassword (shown only now): ${password}`

  if (command === 'create') {
    if (!(roles as readonly string[]).includes(options.role)) exitWith(`--role must be one of ${roles.join(', ')}`)
    const user = await createUser(deps, { username, password, role: options.role as Role, generated }).catch(
      failWithDetail,
    )
    console.log(`Created ${user.role} "${user.username}".${show}`)
    return
  }
  const user = await findUserByName(deps.database.db, username)
  if (!user) exitWith(`No user is named "${username}".`)
  await setPassword(deps, user.id, password, { generated }).catch(failWithDetail)
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
