import { resolve } from 'node:path'
import packageJson from '../../../package.json' with { type: 'json' }
import { type Config, ConfigError, type Env, parseConfig } from '../../core/config/config.js'
import type { ServiceIdentity } from '../../core/runtime/runtime-deps.js'

/** `parseConfig` plus what only Node can do: relative directories resolved against the working directory. */
export function readNodeConfig(env: Env): Config {
  const config = parseConfig(env)
  return {
    ...config,
    dataDir: resolve(config.dataDir),
    database:
      config.database.kind === 'sqlite' ? { kind: 'sqlite', file: resolve(config.database.file) } : config.database,
    storage:
      config.storage.kind === 'local'
        ? {
            kind: 'local',
            blobDir: resolve(config.storage.blobDir),
            thumbnailDir: resolve(config.storage.thumbnailDir),
          }
        : config.storage,
    backup: { ...config.backup, dir: resolve(config.backup.dir) },
  }
}

/** `readNodeConfig` for an entry point: invalid configuration ends the process with its message. */
export function readNodeConfigOrExit(env: Env): Config {
  try {
    return readNodeConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) exitWith(error.message)
    throw error
  }
}

export function nodeServiceIdentity(): ServiceIdentity {
  return {
    name: 'model-vault',
    version: packageJson.version,
    instanceId: crypto.randomUUID(),
    startedAt: new Date().toISOString(),
  }
}

const filesystemErrors = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'ENOSPC', 'EEXIST', 'EISDIR'])

/** A start-up error in one line that says what to change, without a stack trace. */
export function describeStartupError(error: unknown, config: Config): string {
  const code = (error as NodeJS.ErrnoException)?.code
  const message = error instanceof Error ? error.message : String(error)
  if (code && filesystemErrors.has(code)) {
    return `${message}. Check that VAULT_DATA_DIR (${config.dataDir}) and VAULT_BACKUP_DIR name writable directories.`
  }
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === '28P01' || code === '3D000') {
    return `cannot use the database (${code}): check VAULT_DATABASE_URL.`
  }
  return message
}

/** Prints `model-vault: <message>` to stderr and exits 1. */
export function exitWith(message: string): never {
  process.stderr.write(`model-vault: ${message}\n`)
  process.exit(1)
}
