/**
 * `model-vault`: the app and the ports it is built from, for mounting the vault in another Hono
 * app or running it on another runtime. Runtime-free: imports nothing from Node.
 */
export { createApp } from './app.js'
export type { PasswordHasher } from './core/accounts/password-hasher.js'
export type { BackupSink } from './core/backup/backup-sink.js'
export type { BlobStore } from './core/blobs/blob-store.js'
export type { CreateSha256 } from './core/blobs/hasher.js'
export type { Config } from './core/config/config.js'
export { ConfigError, parseConfig } from './core/config/config.js'
export type { VaultDatabase } from './core/db/database.js'
export type { Database as DatabaseSchema } from './core/db/schema.js'
export type { Deps, GetDocsAsset, GetUiAsset, ServiceIdentity } from './core/deps.js'
export type { ExtractStoredFile } from './core/ingest/extractor.js'
export type { ReadMultipart } from './core/ingest/multipart.js'
export type { FileRecord, ModelRecord } from './core/library/records.js'
export type { PrinterProvider, PrinterProviderFactory } from './core/printers/provider.js'
export type { PrinterProviderKind } from './core/printers/provider-kind.js'
export type { Clock } from './core/runtime/clock.js'
export type { Logger } from './core/runtime/logger.js'
export { createJsonLogger } from './core/runtime/logger.js'
export type { AppDeps, AppEnv } from './routes/app-env.js'
export { fetchHeaderAccess, type HeaderAccess } from './routes/header-access.js'
