import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from './config.js'

const problemsOf = (env: Record<string, string>) => {
  try {
    parseConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('configuration from VAULT_* variables', () => {
  it('defaults to SQLite and local storage under /data, each part in its own subdirectory', () => {
    const config = parseConfig({})
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      dataDir: '/data',
      database: { kind: 'sqlite', file: '/data/db/vault.sqlite' },
      storage: { kind: 'local', blobDir: '/data/blobs', thumbnailDir: '/data/thumbs' },
      backup: { dir: '/data/backups', retentionDays: 30 },
    })
    expect(config.backup.s3).toBeUndefined()
  })

  it('places every default directory under VAULT_DATA_DIR', () => {
    const config = parseConfig({ VAULT_DATA_DIR: './data/' })
    expect(config.database).toEqual({ kind: 'sqlite', file: './data/db/vault.sqlite' })
    expect(config.backup.dir).toBe('./data/backups')
  })

  it('reads PostgreSQL and SQLite database URLs', () => {
    expect(parseConfig({ VAULT_DATABASE_URL: 'postgres://u:p@db:5432/vault' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u:p@db:5432/vault',
    })
    expect(parseConfig({ VAULT_DATABASE_URL: 'sqlite:///srv/vault.db' }).database).toEqual({
      kind: 'sqlite',
      file: '/srv/vault.db',
    })
    expect(parseConfig({ VAULT_DATABASE_URL: 'sqlite:vault.db' }).database).toEqual({
      kind: 'sqlite',
      file: 'vault.db',
    })
  })

  it('reads S3 storage settings, normalising the prefix', () => {
    const config = parseConfig({
      VAULT_STORAGE: 's3',
      VAULT_S3_ENDPOINT: 'http://minio:9000/',
      VAULT_S3_BUCKET: 'vault',
      VAULT_S3_PREFIX: '/home/',
      VAULT_S3_ACCESS_KEY_ID: 'id',
      VAULT_S3_SECRET_ACCESS_KEY: 'secret',
      VAULT_S3_FORCE_PATH_STYLE: 'true',
    })
    expect(config.storage).toEqual({
      kind: 's3',
      s3: {
        endpoint: 'http://minio:9000',
        region: 'us-east-1',
        bucket: 'vault',
        prefix: 'home/',
        credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
        forcePathStyle: true,
      },
    })
  })

  it('turns on the S3 backup copy only when a backup bucket is named', () => {
    expect(parseConfig({ VAULT_BACKUP_S3_REGION: 'eu-west-1' }).backup.s3).toBeUndefined()
    expect(parseConfig({ VAULT_BACKUP_S3_BUCKET: 'backups' }).backup.s3).toMatchObject({
      bucket: 'backups',
      prefix: '',
    })
  })

  it('accepts 0 retention days (keep forever)', () => {
    expect(parseConfig({ VAULT_BACKUP_RETENTION_DAYS: '0' }).backup.retentionDays).toBe(0)
  })

  it.each([
    [{ VAULT_PORT: 'eighty' }, 'VAULT_PORT must be a whole number from 0 to 65535 (got "eighty")'],
    [{ VAULT_PORT: '70000' }, 'VAULT_PORT must be a whole number from 0 to 65535 (got "70000")'],
    [
      { VAULT_BACKUP_RETENTION_DAYS: '-1' },
      'VAULT_BACKUP_RETENTION_DAYS must be a whole number from 0 to 36500 (got "-1")',
    ],
    [{ VAULT_STORAGE: 'ftp' }, 'VAULT_STORAGE must be local or s3 (got "ftp")'],
    [{ VAULT_STORAGE: 's3' }, 'VAULT_S3_BUCKET is required when VAULT_STORAGE is s3'],
    [
      { VAULT_DATABASE_URL: 'mysql://root:hunter2@db/vault' },
      'VAULT_DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got "mysql://root:***@db/vault")',
    ],
    [{ VAULT_PUBLIC_URL: 'vault.local' }, 'VAULT_PUBLIC_URL must be an http:// or https:// URL (got "vault.local")'],
    [
      { VAULT_STORAGE: 's3', VAULT_S3_BUCKET: 'b', VAULT_S3_FORCE_PATH_STYLE: 'maybe' },
      'VAULT_S3_FORCE_PATH_STYLE must be true or false (got "maybe")',
    ],
    [{ VAULT_JWT_SECRET: 'short' }, 'VAULT_JWT_SECRET must be at least 32 bytes long'],
    [{ VAULT_ADMIN_PASSWORD: 'hunter2' }, 'VAULT_ADMIN_PASSWORD must be at least 12 characters long'],
    [
      { VAULT_ADMIN_USERNAME: 'administrator', VAULT_ADMIN_PASSWORD: 'Administrator' },
      'VAULT_ADMIN_PASSWORD must not be the username',
    ],
    [
      { VAULT_ADMIN_USERNAME: 'root user' },
      'VAULT_ADMIN_USERNAME must be 1-64 letters, digits, dots, dashes or underscores',
    ],
    [{ VAULT_TRUST_PROXY: 'sometimes' }, 'VAULT_TRUST_PROXY must be true or false (got "sometimes")'],
    [
      { VAULT_BACKUP_S3_BUCKET: 'b', VAULT_BACKUP_S3_ACCESS_KEY_ID: 'id' },
      'VAULT_BACKUP_S3_ACCESS_KEY_ID and VAULT_BACKUP_S3_SECRET_ACCESS_KEY must be set together',
    ],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(problemsOf(env)).toEqual([message])
  })

  it('reports every problem at once, in one message, without leaking a password', () => {
    const error = (() => {
      try {
        parseConfig({ VAULT_PORT: 'x', VAULT_STORAGE: 'nfs', VAULT_DATABASE_URL: 'mysql://u:topsecret@h/db' })
      } catch (e) {
        return e as ConfigError
      }
    })()
    expect(error).toBeInstanceOf(ConfigError)
    expect(error!.problems).toHaveLength(3)
    expect(error!.message).toMatch(/^Invalid configuration:\n {2}- VAULT_PORT/)
    expect(error!.message).not.toContain('topsecret')
  })

  it('reads the first superuser and the proxy setting', () => {
    const config = parseConfig({
      VAULT_ADMIN_USERNAME: 'root',
      VAULT_ADMIN_PASSWORD: ' spaces count too ',
      VAULT_TRUST_PROXY: 'yes',
    })
    expect(config.admin).toEqual({ username: 'root', password: ' spaces count too ' })
    expect(config.trustProxy).toBe(true)
    expect(parseConfig({}).trustProxy).toBe(false)
  })

  it('reads the CORS allow-list: off by default, origins as browsers send them, a clear problem for anything else', () => {
    expect(parseConfig({}).corsOrigins).toEqual([])
    expect(
      parseConfig({ VAULT_CORS_ORIGINS: ' https://app.example.org , http://localhost:5173/,HTTPS://Other.Example' })
        .corsOrigins,
    ).toEqual(['https://app.example.org', 'http://localhost:5173', 'https://other.example'])
    let error: ConfigError | undefined
    try {
      parseConfig({ VAULT_CORS_ORIGINS: 'https://ok.example, *, https://app.example.org/path, ftp://files.example' })
    } catch (caught) {
      error = caught as ConfigError
    }
    expect(error?.problems).toEqual([
      'VAULT_CORS_ORIGINS must list origins such as https://app.example.org or http://localhost:5173, separated by commas (got "*")',
      'VAULT_CORS_ORIGINS must list origins such as https://app.example.org or http://localhost:5173, separated by commas (got "https://app.example.org/path")',
      'VAULT_CORS_ORIGINS must list origins such as https://app.example.org or http://localhost:5173, separated by commas (got "ftp://files.example")',
    ])
  })

  it('reads the log level: info by default, a clear problem for an unknown one', () => {
    expect(parseConfig({}).logLevel).toBe('info')
    expect(parseConfig({ VAULT_LOG_LEVEL: 'DEBUG' }).logLevel).toBe('debug')
    expect(() => parseConfig({ VAULT_LOG_LEVEL: 'verbose' })).toThrow(
      'VAULT_LOG_LEVEL must be one of debug, info, warn, error (got "verbose")',
    )
  })

  it('turns metrics on with a bearer token of at least 32 bytes', () => {
    expect(parseConfig({}).metricsToken).toBeUndefined()
    expect(parseConfig({ VAULT_METRICS_TOKEN: 'm'.repeat(32) }).metricsToken).toBe('m'.repeat(32))
    expect(() => parseConfig({ VAULT_METRICS_TOKEN: 'short' })).toThrow(
      'VAULT_METRICS_TOKEN must be at least 32 bytes long',
    )
  })

  it('reads the budgets of reading uploaded files, leaving the number of readers to the runtime unless set', () => {
    expect(parseConfig({}).extract).toEqual({ workers: undefined, timeoutMs: 30_000, memoryMb: 512 })
    expect(
      parseConfig({ VAULT_EXTRACT_WORKERS: '3', VAULT_EXTRACT_TIMEOUT_MS: '5000', VAULT_EXTRACT_MEMORY_MB: '256' })
        .extract,
    ).toEqual({ workers: 3, timeoutMs: 5000, memoryMb: 256 })
    expect(
      problemsOf({ VAULT_EXTRACT_WORKERS: '0', VAULT_EXTRACT_TIMEOUT_MS: '5', VAULT_EXTRACT_MEMORY_MB: '8' }),
    ).toEqual([
      'VAULT_EXTRACT_WORKERS must be a whole number from 1 to 64 (got "0")',
      'VAULT_EXTRACT_TIMEOUT_MS must be a whole number from 10 to 3600000 (got "5")',
      'VAULT_EXTRACT_MEMORY_MB must be a whole number from 16 to 65536 (got "8")',
    ])
  })

  it('treats empty variables as unset', () => {
    expect(parseConfig({ VAULT_PORT: '', VAULT_STORAGE: ' ' }).port).toBe(8080)
  })
})
