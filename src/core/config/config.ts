/**
 * Service configuration, read from `VAULT_*` environment variables.
 *
 * `parseConfig` is a pure function of an env record so every runtime entry (Node, Workers,
 * tests) reads configuration the same way. It never throws for a single bad value: it
 * collects every problem and throws one `ConfigError` whose message names each variable.
 */
export type DatabaseConfig = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string }

export interface S3Config {
  /** Absent means AWS's own endpoint for the region. */
  endpoint?: string
  region: string
  bucket: string
  /** Key prefix inside the bucket, '' or ending in '/'. */
  prefix: string
  /** Absent means the AWS SDK's default credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string }
  forcePathStyle: boolean
}

export type StorageConfig = { kind: 'local'; blobDir: string; thumbnailDir: string } | { kind: 's3'; s3: S3Config }

export interface Config {
  host: string
  port: number
  dataDir: string
  database: DatabaseConfig
  storage: StorageConfig
  backup: { dir: string; retentionDays: number; s3?: S3Config }
  jwt: { secret?: string; keyFile?: string }
  /** The first superuser, created when the install has no users. */
  admin: { username?: string; password?: string }
  /** Take the client address from `X-Forwarded-For` (set only behind a reverse proxy). */
  trustProxy: boolean
  /** Largest file one upload may carry. */
  maxUploadBytes: number
  publicUrl?: string
  /** Printers: the credentials key (`VAULT_PRINTER_CREDENTIALS_KEY`) and how patiently to talk to them. */
  printers: { credentialsKey?: string; timeoutMs: number; statusTtlMs: number; confirmMs: number }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

/** Joins path segments with '/', without depending on a runtime's path module. */
const joinPath = (base: string, ...parts: string[]) => [base.replace(/\/+$/, ''), ...parts].join('/')

export function parseConfig(env: Env): Config {
  const problems: string[] = []
  const read = (name: string) => {
    const value = env[name]?.trim()
    return value === '' ? undefined : value
  }
  const integer = (name: string, fallback: number, min: number, max: number) => {
    const raw = read(name)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`)
      return fallback
    }
    return value
  }
  const boolean = (name: string, fallback: boolean) => {
    const raw = read(name)?.toLowerCase()
    if (raw === undefined) return fallback
    if (['1', 'true', 'yes', 'on'].includes(raw)) return true
    if (['0', 'false', 'no', 'off'].includes(raw)) return false
    problems.push(`${name} must be true or false (got "${raw}")`)
    return fallback
  }
  const httpUrl = (name: string) => {
    const raw = read(name)
    if (raw === undefined) return undefined
    if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
      problems.push(`${name} must be an http:// or https:// URL (got "${raw}")`)
      return undefined
    }
    return raw.replace(/\/+$/, '')
  }
  const s3 = (prefix: string, required: boolean): S3Config | undefined => {
    const bucket = read(`${prefix}_BUCKET`)
    if (bucket === undefined) {
      if (required) problems.push(`${prefix}_BUCKET is required when VAULT_STORAGE is s3`)
      return undefined
    }
    const accessKeyId = read(`${prefix}_ACCESS_KEY_ID`)
    const secretAccessKey = read(`${prefix}_SECRET_ACCESS_KEY`)
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
      problems.push(`${prefix}_ACCESS_KEY_ID and ${prefix}_SECRET_ACCESS_KEY must be set together`)
    }
    const keyPrefix = read(`${prefix}_PREFIX`)?.replace(/^\/+|\/+$/g, '')
    return {
      endpoint: httpUrl(`${prefix}_ENDPOINT`),
      region: read(`${prefix}_REGION`) ?? 'us-east-1',
      bucket,
      prefix: keyPrefix ? `${keyPrefix}/` : '',
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      forcePathStyle: boolean(`${prefix}_FORCE_PATH_STYLE`, false),
    }
  }

  const dataDir = (read('VAULT_DATA_DIR') ?? '/data').replace(/\/+$/, '') || '/'
  const port = integer('VAULT_PORT', 8080, 0, 65535)

  let database: DatabaseConfig = { kind: 'sqlite', file: joinPath(dataDir, 'db', 'vault.sqlite') }
  const databaseUrl = read('VAULT_DATABASE_URL')
  if (databaseUrl !== undefined) {
    if (/^postgres(ql)?:\/\//.test(databaseUrl)) database = { kind: 'postgres', url: databaseUrl }
    else if (/^sqlite:/.test(databaseUrl) && databaseUrl.replace(/^sqlite:(\/\/)?/, '') !== '') {
      database = { kind: 'sqlite', file: databaseUrl.replace(/^sqlite:(\/\/)?/, '') }
    } else {
      problems.push(
        `VAULT_DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got "${redactUrl(databaseUrl)}")`,
      )
    }
  }

  let storage: StorageConfig = {
    kind: 'local',
    blobDir: joinPath(dataDir, 'blobs'),
    thumbnailDir: joinPath(dataDir, 'thumbs'),
  }
  const storageKind = read('VAULT_STORAGE') ?? 'local'
  if (storageKind === 's3') {
    const config = s3('VAULT_S3', true)
    if (config) storage = { kind: 's3', s3: config }
  } else if (storageKind !== 'local') {
    problems.push(`VAULT_STORAGE must be local or s3 (got "${storageKind}")`)
  }

  const jwtSecret = read('VAULT_JWT_SECRET')
  if (jwtSecret !== undefined && new TextEncoder().encode(jwtSecret).length < 32) {
    problems.push('VAULT_JWT_SECRET must be at least 32 bytes long')
  }

  const adminUsername = read('VAULT_ADMIN_USERNAME')
  if (adminUsername !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(adminUsername)) {
    problems.push('VAULT_ADMIN_USERNAME must be 1-64 letters, digits, dots, dashes or underscores')
  }
  const adminPassword = env.VAULT_ADMIN_PASSWORD || undefined
  if (adminPassword !== undefined && adminPassword.length < 12)
    problems.push('VAULT_ADMIN_PASSWORD must be at least 12 characters long')
  if (adminPassword !== undefined && adminPassword.toLowerCase() === (adminUsername ?? 'admin').toLowerCase()) {
    problems.push('VAULT_ADMIN_PASSWORD must not be the username')
  }

  const printerKey = read('VAULT_PRINTER_CREDENTIALS_KEY')
  if (printerKey !== undefined && new TextEncoder().encode(printerKey).length < 32) {
    problems.push('VAULT_PRINTER_CREDENTIALS_KEY must be at least 32 bytes long')
  }

  const config: Config = {
    host: read('VAULT_HOST') ?? '127.0.0.1',
    port,
    dataDir,
    database,
    storage,
    backup: {
      dir: (read('VAULT_BACKUP_DIR') ?? joinPath(dataDir, 'backups')).replace(/\/+$/, ''),
      retentionDays: integer('VAULT_BACKUP_RETENTION_DAYS', 30, 0, 36500),
      s3: s3('VAULT_BACKUP_S3', false),
    },
    jwt: { secret: jwtSecret, keyFile: read('VAULT_JWT_KEY_FILE') },
    admin: { username: adminUsername, password: adminPassword },
    trustProxy: boolean('VAULT_TRUST_PROXY', false),
    maxUploadBytes: integer('VAULT_MAX_UPLOAD_BYTES', 4 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    publicUrl: httpUrl('VAULT_PUBLIC_URL'),
    printers: {
      credentialsKey: printerKey,
      timeoutMs: integer('VAULT_PRINTER_TIMEOUT_MS', 2500, 50, 120_000),
      statusTtlMs: integer('VAULT_PRINTER_STATUS_TTL_MS', 2000, 0, 600_000),
      confirmMs: integer('VAULT_PRINTER_CONFIRM_MS', 10_000, 0, 600_000),
    },
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

/** Hides a password in a connection URL so it can be shown in a message. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
}
