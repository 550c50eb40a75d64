#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { createJsonLogger } from '../../core/runtime/logger.js'
import { runBackupCommand, verifyArchiveFile } from './cli-backup.js'
import { runBlobsCommand } from './cli-blobs.js'
import { runImportCommand } from './cli-import.js'
import { runUploadCommand } from './cli-upload.js'
import { runUsersCommand } from './cli-users.js'
import { describeStartupError, exitWith, nodeServiceIdentity, readNodeConfigOrExit } from './node-config.js'
import { createNodeDeps } from './node-deps.js'

const usage = `Usage: model-vault <command> [options]   (from a checkout: npm run cli -- <command> …)

Works on the database and storage named by the same VAULT_* variables as the service,
whether or not the service is running, except upload and import, which talk to a running vault.

  upload [--name NAME] [--strict] <file>
                                store a file (a slicer's G-code) in the vault at MODEL_VAULT_URL
                                with the API key MODEL_VAULT_API_KEY, from the environment or
                                ~/.config/model-vault/hook.env (%APPDATA% on Windows); the name is
                                --name, else SLIC3R_PP_OUTPUT_NAME's, else the file's. Exit 0 also
                                when the vault cannot be reached, unless --strict

  import [--template T] [--model-per-file] [--dry-run [--json]] [--concurrency N]
         [--state FILE] [--include-hidden] <dir>
                                store a folder tree in the vault at MODEL_VAULT_URL (configured as
                                for upload; the key needs the scopes read, upload and manage).
                                --template names the folders from <dir> down: {collection},
                                {creator} (tag creator:<name>), {tag}, {ignore} or *, then {model}
                                (default {model}): that folder is a model with every file below
                                it, always a model of its own. --model-per-file: each
                                mesh/G-code/CAD file is a model (or joins the one holding it).
                                --dry-run prints the plan (--json: as JSON). A journal (--state, default under
                                ~/.local/state/model-vault/imports) makes a second run send only
                                new or changed files and retry failures. Exit 1 when any failed

  users list
  users create <username> [--role user|admin|superuser] [--password-stdin]
  users reset-password <username> [--password-stdin] [--enable]
  backup create                 make a full backup, as POST /api/v1/backups does
  backup list
  backup verify <archive.tar.gz>  check an archive against its manifest (needs no database)
  backup restore <backup-id | archive.tar.gz>
                                restore the whole install, as POST /api/v1/backups/{id}/restore
                                does; stop the service first
  blobs gc [--dry-run]          delete blobs and thumbnails no file or model refers to (older
                                than VAULT_GC_GRACE_MINUTES), as the scheduled collection does

Without --password-stdin a strong password is generated and printed once.
reset-password ends the user's sessions and clears their failed sign-ins;
--enable also re-enables a disabled account.`

const commands = {
  users: ['list', 'create', 'reset-password'],
  backup: ['create', 'list', 'verify', 'restore'],
  blobs: ['gc'],
} as const

/**
 * Administration from the shell, for when the API cannot help: users, passwords, backups, garbage.
 * Prints for people on stdout; errors go to stderr with exit code 1 (2 for usage).
 */
async function cli(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string', default: 'user' },
      'password-stdin': { type: 'boolean', default: false },
      enable: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      name: { type: 'string' },
      strict: { type: 'boolean', default: false },
      template: { type: 'string', default: '{model}' },
      'model-per-file': { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '4' },
      state: { type: 'string' },
      'include-hidden': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  const [group, command, argument] = positionals
  if (group === 'upload' && !values.help) {
    process.exitCode = await runUploadCommand({ file: command, name: values.name, strict: values.strict }, process.env)
    return
  }
  if (group === 'import' && !values.help) {
    process.exitCode = await runImportCommand(
      {
        dir: command,
        template: values.template,
        modelPerFile: values['model-per-file'],
        dryRun: values['dry-run'],
        json: values.json,
        concurrency: values.concurrency,
        state: values.state,
        includeHidden: values['include-hidden'],
      },
      process.env,
    )
    return
  }
  const known = commands[group as keyof typeof commands] as readonly string[] | undefined
  if (values.help || !command || !known?.includes(command)) return usageError(values.help)
  if (group === 'backup' && command === 'verify') return argument ? verifyArchiveFile(argument) : usageError(false)
  if (group === 'backup' && command === 'restore' && !argument) return usageError(false)

  const config = readNodeConfigOrExit(process.env)
  const logger = createJsonLogger((line) => process.stderr.write(line), { level: 'warn' })
  const opened = await createNodeDeps(config, { logger, service: nodeServiceIdentity() }).catch((error: unknown) =>
    exitWith(describeStartupError(error, config)),
  )
  try {
    if (group === 'users') await runUsersCommand(opened.deps, command, argument, values)
    else if (group === 'blobs') await runBlobsCommand(opened.deps, { dryRun: values['dry-run'] })
    else await runBackupCommand(opened.deps, command, argument)
  } finally {
    await opened.close()
  }
}

function usageError(asked: boolean): void {
  ;(asked ? process.stdout : process.stderr).write(`${usage}\n`)
  if (!asked) process.exit(2)
}

await cli(process.argv.slice(2))
