import type { StorageDeps } from '../blobs/storage-deps.js'
import type { RuntimeDeps } from '../runtime/runtime-deps.js'

/** What the library's functions take; each picks its part. */
export interface LibraryDeps extends Pick<RuntimeDeps, 'database' | 'clock' | 'logger'>, StorageDeps {}
