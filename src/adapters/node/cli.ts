import { parseArgs } from 'node:util'
import { randomToken } from '../../core/auth/secrets.js'
import { roles, type Role } from '../../core/auth/roles.js'
import { ConfigError, type Config } from '../../core/config/config.js'
import type { Deps } from '../../core/deps.js'
import { createJsonLogger } from '../../core/runtime/logger.js'
import { createUser, findUserByName, listUsers, setPassword, updateUser } from '../../core/users/users.js'
import { describeStartupError, exitWith, nodeServiceIdentity, readNodeConfig } from './node-config.js'
import { createNodeDeps } from './node-deps.js'

const usage = `Usage: model-vault <command> [options]   (from a checkout: npm run cli -- <command> …)

Works on the database and storage named by the same VAULT_* variables as the service,
whether or not the service is running.

  users list
  users create <username> [--role user|admin|superuser] [--password-stdin]
  users reset-password <username> [--password-stdin] [--enable]

Without --password-stdin a strong password is generated and printed once.
reset-password ends the user's sessions and clears their failed sign-ins;
--enable also re-enables a disabled account.`

/**
 * Administration from the shell, for when nobody can sign in: create a user, reset a
 * password. Prints for people on stdout; errors go to stderr with exit code 1 (2 for usage).
 */
async function cli(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string', default: 'user' },
      'password-stdin': { type: 'boolean', default: false },
      enable: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  const [group, command, username] = positionals
  if (values.help || group !== 'users' || !command) return usageError(values.help)

  let config: Config
  try {
    config = readNodeConfig(process.env)
  } catch (error) {
    if (error instanceof ConfigError) exitWith(error.message)
    throw error
  }
  const logger = createJsonLogger((line) => process.stderr.write(line), { level: 'warn' })
  const opened = await createNodeDeps(config, { logger, service: nodeServiceIdentity() }).catch((error: unknown) =>
    exitWith(describeStartupError(error, config)),
  )
  try {
    await runUsersCommand(opened.deps, command, username, values)
  } finally {
    await opened.close()
  }
}

async function runUsersCommand(
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
  if (!username || !['create', 'reset-password'].includes(command)) return usageError(false)
  const password = options['password-stdin'] ? await readPasswordFromStdin() : randomToken(18)
  const show = options['password-stdin'] ? '' : `\nPassword (shown only now): ${password}`

  if (command === 'create') {
    if (!(roles as readonly string[]).includes(options.role)) exitWith(`--role must be one of ${roles.join(', ')}`)
    const user = await createUser(deps, { username, password, role: options.role as Role }).catch(failWithDetail)
    console.log(`Created ${user.role} "${user.username}".${show}`)
    return
  }
  const user = await findUserByName(deps.database.db, username)
  if (!user) exitWith(`No user is named "${username}".`)
  await setPassword(deps, user.id, password).catch(failWithDetail)
  if (options.enable && user.disabled_at !== null) await updateUser(deps, user.id, { disabled: false })
  const disabledNote = user.disabled_at !== null && !options.enable ? '\nThe account is disabled; add --enable to re-enable it.' : ''
  console.log(`Reset the password of "${user.username}" and ended their sessions.${show}${disabledNote}`)
}

async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

/** Domain errors (taken username, short password) carry a sentence meant for people. */
function failWithDetail(error: unknown): never {
  if (error instanceof Error && 'code' in error) exitWith(error.message)
  throw error
}

function usageError(asked: boolean): void {
  ;(asked ? process.stdout : process.stderr).write(`${usage}\n`)
  if (!asked) process.exit(2)
}

await cli(process.argv.slice(2))
