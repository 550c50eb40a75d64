import type { DatabaseKind } from '../db/database.js'

/**
 * The table of contents written as the last entry of every backup archive. It lists every
 * other entry with its size and SHA-256, so a restore can check the whole archive before it
 * changes anything. Fields are only ever added; `format_version` changes if that stops holding.
 */
export interface BackupManifest {
  format: 'model-vault-backup'
  format_version: 1
  backup_id: string
  created_at: string
  app_version: string
  schema_version: number
  database_kind: DatabaseKind
  storage_kind: string
  installation_id: string
  counts: { users: number; models: number; files: number; blobs: number; thumbnails: number }
  entries: ManifestEntry[]
}

export interface ManifestEntry {
  path: string
  size: number
  sha256: string
}

export const manifestPath = 'manifest.json'

/**
 * The only entry names an archive may hold. A restore refuses anything else, so a crafted
 * archive cannot write outside its staging area (no `..`, no absolute paths, no links).
 */
const entryPattern = /^(db\/vault\.(sqlite|sql|pgdump)|blobs\/[0-9a-f]{64}|thumbs\/[0-9a-f]{64}|manifest\.json)$/

export const isAllowedEntryName = (name: string) => entryPattern.test(name)

type ArchiveKind = 'model-vault' | 'pre-restore'

/**
 * `model-vault-2026-11-21T08-30-00Z-<id>.tar.gz`: sorts by time, names the backup. A restore's
 * safety copy is named `pre-restore-…`, which retention and lookups by id leave alone.
 */
export function archiveFileName(backupId: string, createdAt: Date, kind: ArchiveKind = 'model-vault'): string {
  const stamp = createdAt
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(':', '-')
  return `${kind}-${stamp}-${backupId}.tar.gz`
}

/**
 * The backup id and creation time an archive's file name carries, or null for other files
 * (safety copies included, unless `kind` asks for them).
 */
export function parseArchiveFileName(
  name: string,
  kind: ArchiveKind = 'model-vault',
): { backupId: string; createdAt: Date } | null {
  const pattern = new RegExp(`^${kind}-(\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}Z)-([0-9a-f-]{36})\\.tar\\.gz$`)
  const [, stamp, backupId] = pattern.exec(name) ?? []
  if (!stamp || !backupId) return null
  const [date, time] = stamp.split('T') as [string, string]
  return { backupId, createdAt: new Date(`${date}T${time.replaceAll('-', ':')}`) }
}
