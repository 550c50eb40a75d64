#!/usr/bin/env node
import { Command, CommanderError, Option } from 'commander'
import {
  describeStartupError,
  exitWith,
  nodeServiceIdentity,
  readNodeConfigOrExit,
} from '../adapters/node/node-config.js'
import { createNodeDeps } from '../adapters/node/node-deps.js'
import { type Role, roles } from '../core/accounts/roles.js'
import type { Deps } from '../core/deps.js'
import { createJsonLogger } from '../core/runtime/logger.js'
import { createBackupCommand, listBackupsCommand, restoreBackupCommand, verifyArchiveFile } from './cli-backup.js'
import { runBlobsCommand } from './cli-blobs.js'
import { runImportCommand } from './cli-import.js'
import { runMergeSuggestionsCommand } from './cli-merge-suggestions.js'
import { runUploadCommand } from './cli-upload.js'
import { createUserCommand, listUsersCommand, resetPasswordCommand } from './cli-users.js'

/**
 * `model-vault`, the command line. Exit codes, the same for every command: 0 done, 1 failed (the
 * message on stderr), 2 a usage error (an unknown command or option, a missing argument: the
 * usage follows). `upload` keeps the slicer hook's own rule: a vault that cannot be reached is
 * exit 0 unless `--strict`, so a slicer's export never fails for it.
 */

const vaultClientHelp = `
It talks to the running vault at MODEL_VAULT_URL with the API key MODEL_VAULT_API_KEY, taken from the
environment or from ~/.config/model-vault/hook.env (%APPDATA%\\model-vault\\hook.env on Windows).`

const localHelp = `
It works on the database and storage named by the same VAULT_* variables as the service, whether or
not the service runs.`

/** Opens the install's database and storage (as the service would), runs `work`, closes them. */
async function withDeps(work: (deps: Deps) => Promise<void>): Promise<void> {
  const config = readNodeConfigOrExit(process.env)
  const logger = createJsonLogger((line) => process.stderr.write(line), { level: 'warn' })
  const opened = await createNodeDeps(config, { logger, service: nodeServiceIdentity() }).catch((error: unknown) =>
    exitWith(describeStartupError(error, config)),
  )
  try {
    await work(opened.deps)
  } finally {
    await opened.close()
  }
}

function program(): Command {
  const cli = new Command('model-vault')
    .description('Self-hosted vault for 3D-printing files: the command line.')
    .version(nodeServiceIdentity().version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for the command')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      `
Exit codes: 0 done, 1 failed, 2 a usage error. From a checkout: npm run cli -- <command> ...`,
    )

  cli
    .command('upload')
    .description("store a file (a slicer's G-code) in the vault")
    .argument('<file>', 'the file; a slicer passes its output path last')
    .option('--name <name>', "the name to store it under (default: SLIC3R_PP_OUTPUT_NAME's, else the file's)")
    .option('--strict', 'exit 1 when the vault cannot be reached (default: exit 0, so the export never fails)')
    .addHelpText(
      'after',
      `${vaultClientHelp}

Examples:
  model-vault upload part.gcode
  model-vault upload --name "Benchy 0.2mm PLA.gcode" --strict /tmp/export.gcode`,
    )
    .action(async (file: string, options: { name?: string; strict?: boolean }) => {
      process.exitCode = await runUploadCommand(
        { file, name: options.name, strict: options.strict ?? false },
        process.env,
      )
    })

  cli
    .command('import')
    .description('store a folder tree in the vault, one model per model folder')
    .argument('<dir>', 'the folder to import')
    .option(
      '--template <template>',
      'what the folders from <dir> down are: {collection}, {creator} (tag creator:<name>), {tag}, {ignore} or *, then {model}',
      '{model}',
    )
    .option('--model-per-file', 'each mesh, G-code or CAD file is a model of its own (or joins the one holding it)')
    .option('--dry-run', 'print the plan and send nothing')
    .option('--json', 'with --dry-run: print the plan as JSON')
    .option('--concurrency <n>', 'files sent at once, 1 to 64', '8')
    .option('--state <file>', 'the journal of what was sent (default under ~/.local/state/model-vault/imports)')
    .option('--include-hidden', 'also import files and folders whose names start with a dot')
    .addHelpText(
      'after',
      `${vaultClientHelp} The key needs the scopes read, upload and manage.

A second run sends only new or changed files and retries failures. Exit 1 when any file failed.

Examples:
  model-vault import --dry-run ~/Prints
  model-vault import --template '{collection}/{model}' ~/Prints
  model-vault import --template '{creator}/{model}' --concurrency 8 ~/Downloads/Printables`,
    )
    .action(
      async (
        dir: string,
        options: {
          template: string
          modelPerFile?: boolean
          dryRun?: boolean
          json?: boolean
          concurrency: string
          state?: string
          includeHidden?: boolean
        },
      ) => {
        process.exitCode = await runImportCommand(
          {
            dir,
            template: options.template,
            modelPerFile: options.modelPerFile ?? false,
            dryRun: options.dryRun ?? false,
            json: options.json ?? false,
            concurrency: options.concurrency,
            state: options.state,
            includeHidden: options.includeHidden ?? false,
          },
          process.env,
        )
      },
    )

  cli
    .command('models')
    .description('the library as a whole')
    .command('merge-suggestions')
    .description('list the groups of models that look like one model; with --merge, merge them after asking')
    .option('--json', 'print the groups as JSON')
    .option('--merge', 'merge each group into its target, asking y/N for each')
    .option('--yes', 'with --merge: merge every group without asking')
    .addHelpText(
      'after',
      `${vaultClientHelp} The key needs the scopes read and manage.

Groups: models whose names are equal but for case, spaces, dashes and extension, and a model whose
G-code was sliced from a mesh another model holds (what earlier versions split). Nothing is
merged without --merge; a group "not the same" is dismissed in the web UI or the API.

Examples:
  model-vault models merge-suggestions
  model-vault models merge-suggestions --merge`,
    )
    .action(async (options: { json?: boolean; merge?: boolean; yes?: boolean }) => {
      process.exitCode = await runMergeSuggestionsCommand(
        { json: options.json ?? false, merge: options.merge ?? false, yes: options.yes ?? false },
        process.env,
      )
    })

  const users = cli
    .command('users')
    .description('list users, create one, or reset a password when nobody can sign in')
    .addHelpText('after', localHelp)
  users
    .command('list')
    .description('every user with their role')
    .action(() => withDeps(listUsersCommand))
  users
    .command('create')
    .description('create a user; prints a generated password once unless --password-stdin')
    .argument('<username>')
    .addOption(new Option('--role <role>', 'what they may do').choices(roles).default('user'))
    .option('--password-stdin', 'read the password from standard input instead of generating one')
    .addHelpText('after', '\nExample:\n  model-vault users create alice --role admin')
    .action((username: string, options: { role: Role; passwordStdin?: boolean }) =>
      withDeps((deps) =>
        createUserCommand(deps, username, { role: options.role, passwordStdin: options.passwordStdin ?? false }),
      ),
    )
  users
    .command('reset-password')
    .description(
      "set a new password (generated unless --password-stdin), end the user's sessions and clear failed sign-ins",
    )
    .argument('<username>')
    .option('--password-stdin', 'read the password from standard input instead of generating one')
    .option('--enable', 'also re-enable a disabled account')
    .addHelpText(
      'after',
      '\nExample:\n  printf \'%s\' "$NEW_PASSWORD" | model-vault users reset-password admin --password-stdin',
    )
    .action((username: string, options: { passwordStdin?: boolean; enable?: boolean }) =>
      withDeps((deps) =>
        resetPasswordCommand(deps, username, {
          passwordStdin: options.passwordStdin ?? false,
          enable: options.enable ?? false,
        }),
      ),
    )

  const backup = cli
    .command('backup')
    .description('make, list, verify and restore full backups')
    .addHelpText('after', localHelp)
  backup
    .command('create')
    .description('make a full backup, as POST /api/v1/backups does, with its progress')
    .action(() => withDeps(createBackupCommand))
  backup
    .command('list')
    .description('the backups, newest first')
    .action(() => withDeps(listBackupsCommand))
  backup
    .command('verify')
    .description('check an archive against its manifest (needs no database)')
    .argument('<archive>', 'a .tar.gz backup archive')
    .action((archive: string) => verifyArchiveFile(archive))
  backup
    .command('restore')
    .description('restore the whole install from a backup; stop the service first')
    .argument('<backup>', 'a backup id (see backup list) or an archive file')
    .action((target: string) => withDeps((deps) => restoreBackupCommand(deps, target)))

  const blobs = cli.command('blobs').description('stored bytes').addHelpText('after', localHelp)
  blobs
    .command('gc')
    .description(
      'delete blobs and thumbnails no file or model refers to (older than VAULT_GC_GRACE_MINUTES), as the scheduled collection does',
    )
    .option('--dry-run', 'only count what would go')
    .action((options: { dryRun?: boolean }) =>
      withDeps((deps) => runBlobsCommand(deps, { dryRun: options.dryRun ?? false })),
    )

  // Usage errors exit 2 and help or the version 0, for every command alike.
  for (const command of [cli, ...allSubcommands(cli)]) command.exitOverride()
  return cli
}

const allSubcommands = (command: Command): Command[] =>
  command.commands.flatMap((child) => [child, ...allSubcommands(child)])

/** Exit codes for commander's own endings: help asked for and the version are no failure; anything else (help shown for a bare command group too) is a usage error. */
const usageEndings = new Set(['commander.helpDisplayed', 'commander.version'])

try {
  await program().parseAsync(process.argv)
} catch (error) {
  if (!(error instanceof CommanderError)) throw error
  process.exitCode = usageEndings.has(error.code) ? 0 : 2
}
