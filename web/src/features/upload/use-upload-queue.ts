import { useSyncExternalStore } from 'react'
import { uploadQueue } from './upload-queue'

/**
 * The tab's upload queue (see upload-queue.ts): the files with their progress and outcomes, and
 * `add`, `addToModel`, `cancel`, `cancelAll` and `clearFinished`. Every component using it sees the same queue.
 */
export function useUploadQueue() {
  const items = useSyncExternalStore(uploadQueue.subscribe, uploadQueue.getItems)
  return {
    items,
    add: uploadQueue.add,
    addToModel: uploadQueue.addToModel,
    cancel: uploadQueue.cancel,
    cancelAll: uploadQueue.cancelAll,
    clearFinished: uploadQueue.clearFinished,
  }
}
