import type { AccountsDeps } from '../accounts/accounts-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'

/** What signed download links take: the keys that sign them and how long they work. */
export interface DownloadDeps extends Pick<RuntimeDeps, 'database' | 'clock'>, Pick<AccountsDeps, 'keys'> {
  /** `VAULT_DOWNLOAD_LINK_TTL_S`: how long a signed download link (open in slicer) works. */
  downloadLinkTtlSeconds: number
}
