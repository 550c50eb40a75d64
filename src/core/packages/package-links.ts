import type { DownloadDeps } from '../downloads/download-deps.js'
import { signDownloadLink, verifiedSubject } from '../downloads/download-links.js'
import { VaultError } from '../errors.js'
import { getModelRow } from '../library/models.js'
import { slugify } from './package-names.js'

type PackageLinkDeps = Pick<DownloadDeps, 'database' | 'keys' | 'clock' | 'downloadLinkTtlSeconds'>

/** A signed link's parts; the HTTP layer puts them into a URL. */
export interface IssuedPackageLink {
  modelId: string
  token: string
  /** The URL's last segment, which browsers save the download under: `<slug>.zip`. */
  fileName: string
  expiresAt: Date
}

/**
 * What a package link's token is signed for. File ids never take this shape, so a file's link
 * cannot serve a package, nor a package's link a file.
 */
const packageSubject = (modelId: string) => `model-package:${modelId}`

/** Signs a link to one model's package (404 if there is no such model) for `userId`, valid for `VAULT_DOWNLOAD_LINK_TTL_S`. */
export async function issuePackageLink(
  deps: PackageLinkDeps,
  modelId: string,
  userId: string,
): Promise<IssuedPackageLink> {
  const model = await getModelRow(deps.database.db, modelId)
  const { token, expiresAt } = await signDownloadLink(deps, packageSubject(model.id), userId)
  return { modelId: model.id, token, fileName: `${slugify(model.name, 'model')}.zip`, expiresAt }
}

/** Refuses (403) a package link whose token is not valid for exactly this model's package, or whose maker is disabled. */
export async function checkPackageLink(
  deps: Pick<DownloadDeps, 'database' | 'keys' | 'clock'>,
  modelId: string,
  token: string,
) {
  if ((await verifiedSubject(deps, token)) !== packageSubject(modelId)) {
    throw new VaultError('download_link_other_model', "This download link is not for this model's package.")
  }
}
