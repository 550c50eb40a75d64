/**
 * Service configuration, read from `VAULT_*` environment variables.
 *
 * `parseConfig` is a pure function of an env record so every runtime entry (Node, Workers,
 * tests) reads configuration the same way. It never throws for a single bad value: it
 * collects every problem and throws one `ConfigError` whose message names each variable.
 */
import type { LogLevel } from '../runtime/logger.js'
import { createEnvReader, type EnvReader } from './env-reader.js'

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
  /**
   * Garbage collection of unreferenced blobs: every `intervalHours` (0: never on its own), and
   * blobs younger than `graceMinutes` are kept.
   */
  gc: { intervalHours: number; graceMinutes: number }
  jwt: { secret?: string; keyFile?: string }
  /** The first superuser, created when the install has no users. */
  admin: { username?: string; password?: string }
  /**
   * How long a session or API key found live is believed without reading the database again
   * (`VAULT_SESSION_RECHECK_MS`; 0: every request reads it): the bound on how late a revocation
   * made by another process takes effect in this one.
   */
  sessionRecheckMs: number
  /** Take the client address from `X-Forwarded-For` (set only behind a reverse proxy). */
  trustProxy: boolean
  /** Largest file one upload may carry. */
  maxUploadBytes: number
  /** Largest body of any other request (JSON, text): `VAULT_MAX_BODY_BYTES`. */
  maxBodyBytes: number
  publicUrl?: string
  /** Origins (`https://host[:port]`) whose pages may call the API (`VAULT_CORS_ORIGINS`); empty: CORS off. */
  corsOrigins: string[]
  /** The least severe log lines written (`VAULT_LOG_LEVEL`): `debug`, `info` (default), `warn` or `error`. */
  logLevel: LogLevel
  /** The bearer token a Prometheus scraper presents at `/metrics` (`VAULT_METRICS_TOKEN`); absent: metrics off. */
  metricsToken?: string
  /** Seconds a signed download link works (`VAULT_DOWNLOAD_LINK_TTL_S`). */
  downloadLinkTtlSeconds: number
  /** Printers: the credentials key (`VAULT_PRINTER_CREDENTIALS_KEY`) and how patiently to talk to them. */
  printers: {
    credentialsKey?: string
    timeoutMs: number
    statusTtlMs: number
    confirmMs: number
    /** How often the Node entry looks at every printer in the background (`VAULT_PRINTER_WATCH_MS`); 0: never. */
    watchMs: number
  }
  /** How often this process runs the print queue's dispatcher (`VAULT_QUEUE_INTERVAL_MS`); 0: never (other processes do). */
  queueIntervalMs: number
  /**
   * How long the dispatcher's lease on a printer and a job lasts (`VAULT_QUEUE_LEASE_MS`), renewed
   * while a send goes on: after a process stops, the printer and job it held wait this long.
   */
  queueLeaseMs: number
  /**
   * Reading uploaded files (formats, thumbnails) off the request thread: how many readers at
   * once (absent: the runtime picks from its cores), and each file's time and memory budget.
   */
  extract: { workers?: number; timeoutMs: number; memoryMb: number }
  /** Contents this process renders at once for the analysis queue; 0: none (another process of the install renders). */
  analysis: { workers?: number }
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

export type Env = Record<string, string | undefined>

/** Joins path segments with '/', without depending on a runtime's path module. */
const joinPath = (base: string, ...parts: string[]) => [base.replace(/\/+$/, ''), ...parts].join('/')

export function parseConfig(env: Env): Config {
  const vars = createEnvReader(env)
  const dataDir = (vars.text('VAULT_DATA_DIR') ?? '/data').replace(/\/+$/, '') || '/'
  const config: Config = {
    host: vars.text('VAULT_HOST') ?? '127.0.0.1',
    port: vars.integer('VAULT_PORT', 8080, 0, 65535),
    dataDir,
    database: readDatabase(vars, dataDir),
    storage: readStorage(vars, dataDir),
    backup: {
      dir: (vars.text('VAULT_BACKUP_DIR') ?? joinPath(dataDir, 'backups')).replace(/\/+$/, ''),
      retentionDays: vars.integer('VAULT_BACKUP_RETENTION_DAYS', 30, 0, 36500),
      s3: readS3(vars, 'VAULT_BACKUP_S3', false),
    },
    gc: {
      intervalHours: vars.integer('VAULT_GC_INTERVAL_HOURS', 24, 0, 8760),
      graceMinutes: vars.integer('VAULT_GC_GRACE_MINUTES', 60, 0, 10_080),
    },
    jwt: { secret: vars.secret('VAULT_JWT_SECRET'), keyFile: vars.text('VAULT_JWT_KEY_FILE') },
    admin: readAdmin(vars),
    sessionRecheckMs: vars.integer('VAULT_SESSION_RECHECK_MS', 1000, 0, 10_000),
    trustProxy: vars.boolean('VAULT_TRUST_PROXY', false),
    maxUploadBytes: vars.integer('VAULT_MAX_UPLOAD_BYTES', 4 * 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
    maxBodyBytes: vars.integer('VAULT_MAX_BODY_BYTES', 1024 ** 2, 1024, 1024 ** 3),
    publicUrl: vars.httpUrl('VAULT_PUBLIC_URL'),
    corsOrigins: readOrigins(vars, 'VAULT_CORS_ORIGINS'),
    metricsToken: vars.secret('VAULT_METRICS_TOKEN'),
    logLevel: readLogLevel(vars),
    // 15 minutes: long enough for a slicer to start, ask and download; short enough that a link
    // seen in a browser history, a proxy log or a chat is soon worthless.
    downloadLinkTtlSeconds: vars.integer('VAULT_DOWNLOAD_LINK_TTL_S', 15 * 60, 1, 24 * 60 * 60),
    printers: {
      credentialsKey: vars.secret('VAULT_PRINTER_CREDENTIALS_KEY'),
      timeoutMs: vars.integer('VAULT_PRINTER_TIMEOUT_MS', 2500, 50, 120_000),
      statusTtlMs: vars.integer('VAULT_PRINTER_STATUS_TTL_MS', 2000, 0, 600_000),
      confirmMs: vars.integer('VAULT_PRINTER_CONFIRM_MS', 10_000, 0, 600_000),
      watchMs: vars.integer('VAULT_PRINTER_WATCH_MS', 10_000, 0, 3_600_000),
    },
    queueIntervalMs: vars.integer('VAULT_QUEUE_INTERVAL_MS', 5_000, 0, 3_600_000),
    queueLeaseMs: vars.integer('VAULT_QUEUE_LEASE_MS', 60_000, 1_000, 3_600_000),
    extract: {
      workers:
        vars.text('VAULT_EXTRACT_WORKERS') === undefined ? undefined : vars.integer('VAULT_EXTRACT_WORKERS', 1, 1, 64),
      timeoutMs: vars.integer('VAULT_EXTRACT_TIMEOUT_MS', 30_000, 10, 3_600_000),
      memoryMb: vars.integer('VAULT_EXTRACT_MEMORY_MB', 512, 16, 65_536),
    },
    analysis: {
      workers:
        vars.text('VAULT_ANALYSIS_WORKERS') === undefined
          ? undefined
          : vars.integer('VAULT_ANALYSIS_WORKERS', 1, 0, 64),
    },
  }
  if (vars.problems.length > 0) throw new ConfigError([...vars.problems])
  return config
}

function readDatabase(vars: EnvReader, dataDir: string): DatabaseConfig {
  const fallback: DatabaseConfig = { kind: 'sqlite', file: joinPath(dataDir, 'db', 'vault.sqlite') }
  const url = vars.text('VAULT_DATABASE_URL')
  if (url === undefined) return fallback
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url }
  const file = url.replace(/^sqlite:(\/\/)?/, '')
  if (/^sqlite:/.test(url) && file !== '') return { kind: 'sqlite', file }
  vars.problem(`VAULT_DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got "${redactUrl(url)}")`)
  return fallback
}

function readStorage(vars: EnvReader, dataDir: string): StorageConfig {
  const local: StorageConfig = {
    kind: 'local',
    blobDir: joinPath(dataDir, 'blobs'),
    thumbnailDir: joinPath(dataDir, 'thumbs'),
  }
  const kind = vars.text('VAULT_STORAGE') ?? 'local'
  if (kind === 's3') {
    const s3 = readS3(vars, 'VAULT_S3', true)
    return s3 ? { kind: 's3', s3 } : local
  }
  if (kind !== 'local') vars.problem(`VAULT_STORAGE must be local or s3 (got "${kind}")`)
  return local
}

/** `<prefix>_BUCKET` and its companions; `required` when the storage itself is S3. */
function readS3(vars: EnvReader, prefix: string, required: boolean): S3Config | undefined {
  const bucket = vars.text(`${prefix}_BUCKET`)
  if (bucket === undefined) {
    if (required) vars.problem(`${prefix}_BUCKET is required when VAULT_STORAGE is s3`)
    return undefined
  }
  const accessKeyId = vars.text(`${prefix}_ACCESS_KEY_ID`)
  const secretAccessKey = vars.text(`${prefix}_SECRET_ACCESS_KEY`)
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    vars.problem(`${prefix}_ACCESS_KEY_ID and ${prefix}_SECRET_ACCESS_KEY must be set together`)
  }
  const keyPrefix = vars.text(`${prefix}_PREFIX`)?.replace(/^\/+|\/+$/g, '')
  return {
    endpoint: vars.httpUrl(`${prefix}_ENDPOINT`),
    region: vars.text(`${prefix}_REGION`) ?? 'us-east-1',
    bucket,
    prefix: keyPrefix ? `${keyPrefix}/` : '',
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    forcePathStyle: vars.boolean(`${prefix}_FORCE_PATH_STYLE`, false),
  }
}

function readAdmin(vars: EnvReader): Config['admin'] {
  const username = vars.text('VAULT_ADMIN_USERNAME')
  if (username !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(username)) {
    vars.problem('VAULT_ADMIN_USERNAME must be 1-64 letters, digits, dots, dashes or underscores')
  }
  const password = vars.raw('VAULT_ADMIN_PASSWORD')
  if (password !== undefined && password.length < 12)
    vars.problem('VAULT_ADMIN_PASSWORD must be at least 12 characters long')
  if (password !== undefined && password.toLowerCase() === (username ?? 'admin').toLowerCase()) {
    vars.problem('VAULT_ADMIN_PASSWORD must not be the username')
  }
  return { username, password }
}

/** Hides a password in a connection URL so it can be shown in a message. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
}

/**
 * A comma-separated list of web origins: scheme, host and port only, as browsers send them in
 * `Origin`. Anything else (a path, a wildcard, another scheme) is a problem naming the entry.
 */
function readOrigins(vars: EnvReader, name: string): string[] {
  const entries = (vars.text(name) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  const origins: string[] = []
  for (const entry of entries) {
    const url = URL.canParse(entry) ? new URL(entry) : undefined
    if (url && /^https?:$/.test(url.protocol) && url.origin === entry.replace(/\/$/, '').toLowerCase()) {
      origins.push(url.origin)
    } else {
      vars.problem(
        `${name} must list origins such as https://app.example.org or http://localhost:5173, separated by commas (got "${entry}")`,
      )
    }
  }
  return origins
}

const logLevels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error']

function readLogLevel(vars: EnvReader): LogLevel {
  const raw = vars.text('VAULT_LOG_LEVEL')?.toLowerCase() ?? 'info'
  const level = logLevels.find((known) => known === raw)
  if (level) return level
  vars.problem(`VAULT_LOG_LEVEL must be one of ${logLevels.join(', ')} (got "${raw}")`)
  return 'info'
}
