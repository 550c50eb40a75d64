import type { Selectable } from 'kysely'
import type { Database, FilesTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { getFileRow } from '../library/files.js'
import type { DownloadDeps } from './download-deps.js'
import { signDownloadToken, verifyDownloadToken } from './download-tokens.js'

/** A signed link's parts; the HTTP layer puts them into a URL. */
export interface IssuedDownloadLink {
  fileId: string
  token: string
  /** The URL's last segment: slicers name the download after it and pick the format by its extension. */
  fileName: string
  format: Selectable<FilesTable>['format']
  expiresAt: Date
}

/** Signs a link to one stored file (404 if there is none) for `userId`, valid for `VAULT_DOWNLOAD_LINK_TTL_S`. */
export async function issueDownloadLink(
  deps: DownloadDeps,
  fileId: string,
  userId: string,
): Promise<IssuedDownloadLink> {
  const file = await getFileRow(deps.database.db, fileId)
  const { token, expiresAt } = await signDownloadLink(deps, file.id, userId)
  return { fileId: file.id, token, fileName: linkFileName(file.original_name), format: file.format, expiresAt }
}

/**
 * The file a link serves, once its token checks out for exactly that file and its maker is still
 * an active user. Refusals are decided from the token (and its maker) before the file is looked
 * up, so they say nothing about other files.
 */
export async function redeemDownloadLink(
  deps: Pick<DownloadDeps, 'database' | 'keys' | 'clock'>,
  fileId: string,
  token: string,
): Promise<Selectable<Database['files']>> {
  const subject = await verifiedSubject(deps, token)
  if (subject !== fileId) throw new VaultError('download_link_other_file', 'This download link is for another file.')
  return getFileRow(deps.database.db, fileId)
}

/** A token for `subject` (what the link serves) made for `userId`, valid for `VAULT_DOWNLOAD_LINK_TTL_S`. */
export function signDownloadLink(
  deps: Pick<DownloadDeps, 'keys' | 'clock' | 'downloadLinkTtlSeconds'>,
  subject: string,
  userId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const keys = deps.keys.current().signingKeys
  return signDownloadToken(keys, subject, userId, deps.clock.now(), deps.downloadLinkTtlSeconds)
}

/**
 * What a link's token was signed for. 403 when it has expired, is not one the vault signed for
 * downloads, or was made by a user who has since been disabled or deleted: disabling a user ends
 * their links as it ends their sessions (for as long as they stay disabled).
 */
export async function verifiedSubject(
  deps: Pick<DownloadDeps, 'database' | 'keys' | 'clock'>,
  token: string,
): Promise<string> {
  const check = await verifyDownloadToken(deps.keys.current().signingKeys, token, deps.clock.now())
  if (!check.valid && check.reason === 'expired') {
    throw new VaultError('download_link_expired', 'This download link has expired; ask the vault for a new one.')
  }
  if (!check.valid) throw new VaultError('download_link_invalid', 'This download link is not valid.')
  if (check.issuedBy !== null) {
    const maker = await deps.database.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', check.issuedBy)
      .where('disabled_at', 'is', null)
      .executeTakeFirst()
    if (!maker)
      throw new VaultError(
        'download_link_revoked',
        'The user who made this download link is disabled or deleted; ask for a new one.',
      )
  }
  return check.subject
}

/**
 * The stored name reduced to characters every URL, slicer and file system takes as they are
 * (`Benchy v2 (fixed).STL` → `Benchy_v2_fixed_.stl`), the extension in lower case: Bambu Studio
 * looks for `.3mf` itself. No leading dot, so the segment is never `.` or `..`.
 */
export function linkFileName(originalName: string): string {
  const safe = originalName.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '')
  const dot = safe.lastIndexOf('.')
  const named = dot > 0 ? `${safe.slice(0, dot)}${safe.slice(dot).toLowerCase()}` : safe
  return named === '' ? 'file' : named
}
