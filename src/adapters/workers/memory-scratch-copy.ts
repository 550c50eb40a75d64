import { VaultError } from '../../core/errors.js'
import { byteSourceFromBytes } from '../../core/formats/byte-source.js'
import type { WriteScratchCopy } from '../../core/ingest/scratch-copy.js'
import { readBounded } from '../web/read-bounded.js'

/**
 * Holds an uploaded zip in memory while it is unpacked: a Worker has no disk. Zips over
 * `maxBytes` answer 501 (a Worker has 128 MiB of memory for all its requests), having read no
 * more than that.
 */
export function createMemoryScratchCopy(maxBytes: number): WriteScratchCopy {
  return async (body) => {
    const bytes = await readBounded(
      body,
      maxBytes,
      () =>
        new VaultError(
          'not_supported_on_this_runtime',
          `Zips are unpacked from a copy on disk; Cloudflare Workers have none, so a zip up to ${maxBytes} bytes is held in memory and this one is larger. Upload its files one by one (PUT /api/v1/ingest/{filename} with model_id), or use a Node install.`,
        ),
    )
    return { source: byteSourceFromBytes(bytes), dispose: async () => {} }
  }
}
