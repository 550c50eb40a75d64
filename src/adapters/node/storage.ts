import type { BlobStore } from '../../core/blobs/blob-store.js'
import type { S3Config, StorageConfig } from '../../core/config/config.js'
import type { Logger } from '../../core/runtime/logger.js'
import { createFsBlobReader, createFsBlobStore } from '../fs/fs-blob-store.js'
import { leftoversLogger } from './leftovers-logger.js'

/**
 * Where the vault keeps file bytes and thumbnails on Node: the one place the local-or-S3 choice is
 * made. The S3 client is loaded only for an S3 store: it costs every process or thread that loads
 * it ~16 MiB.
 */
export async function openStorage(
  storage: StorageConfig,
  logger: Logger,
): Promise<{ blobs: BlobStore; thumbnails: BlobStore }> {
  if (storage.kind === 's3') {
    const stores = await s3Stores(storage.s3)
    return { blobs: stores('blobs/'), thumbnails: stores('thumbs/') }
  }
  return {
    blobs: await createFsBlobStore(storage.blobDir, leftoversLogger(logger, 'blob staging')),
    thumbnails: await createFsBlobStore(storage.thumbnailDir, leftoversLogger(logger, 'thumbnail staging')),
  }
}

/** Read access to the blobs alone, for the readers on worker threads: staging is the main thread's business. */
export async function openBlobReader(storage: StorageConfig): Promise<Pick<BlobStore, 'get'>> {
  return storage.kind === 's3' ? (await s3Stores(storage.s3))('blobs/') : createFsBlobReader(storage.blobDir)
}

/** Stores under prefixes of one bucket, sharing one client. */
async function s3Stores(s3: S3Config): Promise<(folder: string) => BlobStore> {
  const [{ createS3BlobStore }, { createS3Client }] = await Promise.all([
    import('../s3/s3-blob-store.js'),
    import('../s3/s3-client.js'),
  ])
  const client = createS3Client(s3)
  return (folder) => createS3BlobStore({ client, bucket: s3.bucket, prefix: `${s3.prefix}${folder}` })
}
