import { existsSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * Where the commands that talk to a running vault (`upload`, `import`) find it: MODEL_VAULT_URL,
 * MODEL_VAULT_API_KEY and MODEL_VAULT_TIMEOUT from the environment or the hook's config file.
 */
export interface HookConfig {
  url: string
  key: string
  timeoutSeconds: number
}

const hookSettings = ['MODEL_VAULT_URL', 'MODEL_VAULT_API_KEY', 'MODEL_VAULT_TIMEOUT'] as const

export function configFilePath(env: NodeJS.ProcessEnv): string {
  if (env.MODEL_VAULT_HOOK_CONFIG) return env.MODEL_VAULT_HOOK_CONFIG
  const base = env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.APPDATA) || join(homedir(), '.config')
  return join(base, 'model-vault', 'hook.env')
}

/** `NAME=value` lines of the config file, read, never run; quotes around a value are dropped. */
function readConfigFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {}
  const entries = readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .map((line) => /^([A-Z_]+)=(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, name, value]) => [name, (value ?? '').replace(/^"(.*)"$|^'(.*)'$/, '$1$2')])
  return Object.fromEntries(entries.filter(([name]) => hookSettings.includes(name as (typeof hookSettings)[number])))
}

/** The environment wins over the config file; nothing comes from the command line, where others could read the key. */
export function hookConfig(env: NodeJS.ProcessEnv): HookConfig | null {
  const file = readConfigFile(configFilePath(env))
  const url = env.MODEL_VAULT_URL || file.MODEL_VAULT_URL
  const key = env.MODEL_VAULT_API_KEY || file.MODEL_VAULT_API_KEY
  const timeoutSeconds = Number(env.MODEL_VAULT_TIMEOUT || file.MODEL_VAULT_TIMEOUT || 60)
  return url && key ? { url: url.replace(/\/+$/, ''), key, timeoutSeconds } : null
}

/** The `detail` of a problem+json answer, else the start of the body. */
export const detailOf = (text: string) => {
  try {
    return String((JSON.parse(text) as { detail?: unknown }).detail ?? text)
  } catch {
    return text.slice(0, 200)
  }
}
