import type { Leftovers } from '../../core/blobs/blob-store.js'
import type { Logger } from '../../core/runtime/logger.js'

/** Logs what start-up removed of a stopped process's staging or scratch files in `place`. */
export const leftoversLogger =
  (logger: Logger, place: string) =>
  ({ files, bytes }: Leftovers) =>
    logger.info('leftovers of a stopped process removed', { place, files, bytes })
