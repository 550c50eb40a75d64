import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useRef, useState } from 'react'
import { failureOf, type Outcome, outcomeOf } from './outcome'
import { staleAfterUpload } from './query-keys'
import { sendUpload } from './send-upload'

/** Uploads running at once; more wait their turn. */
export const uploadConcurrency = 3

export interface UploadItem {
  id: number
  file: File
  /** The name to show: the path inside a dropped or chosen folder, else the file name. */
  label: string
  sentBytes: number
  status: 'queued' | 'uploading' | 'finished'
  outcome?: Outcome
}

/** A file as react-dropzone hands it over from a folder drop: with its path inside the folder. */
type FileWithPath = File & { path?: string; relativePath?: string }

/** The path to show: folder drops give `path`, a directory input gives `webkitRelativePath`. */
export function labelOf(file: FileWithPath): string {
  const path = file.relativePath || file.path || file.webkitRelativePath || file.name
  return path.replace(/^\.?\//, '')
}

/**
 * The upload queue: files added wait, at most `uploadConcurrency` upload at once, each can be
 * cancelled, and when the queue has run dry the library's queries are refreshed.
 */
export function useUploadQueue() {
  const queryClient = useQueryClient()
  const [items, setItems] = useState<UploadItem[]>([])
  const nextId = useRef(1)
  const controllers = useRef(new Map<number, AbortController>())

  const update = useCallback((id: number, change: Partial<UploadItem>) => {
    setItems((current) => current.map((item) => (item.id === id ? { ...item, ...change } : item)))
  }, [])

  const add = useCallback((files: File[]) => {
    const added = files.map((file) => ({
      id: nextId.current++,
      file,
      label: labelOf(file),
      sentBytes: 0,
      status: 'queued' as const,
    }))
    setItems((current) => [...current, ...added])
  }, [])

  const start = useCallback(
    (item: UploadItem) => {
      const controller = new AbortController()
      controllers.current.set(item.id, controller)
      update(item.id, { status: 'uploading' })
      sendUpload(item.file, {
        signal: controller.signal,
        onProgress: (sentBytes) => update(item.id, { sentBytes }),
      })
        .then(
          (result) => update(item.id, { status: 'finished', sentBytes: item.file.size, outcome: outcomeOf(result) }),
          (error: unknown) => update(item.id, { status: 'finished', outcome: failureOf(error) }),
        )
        .finally(() => controllers.current.delete(item.id))
    },
    [update],
  )

  // Starts waiting files while fewer than the limit are running.
  useEffect(() => {
    const running = items.filter((item) => item.status === 'uploading').length
    const waiting = items.filter((item) => item.status === 'queued').slice(0, uploadConcurrency - running)
    for (const item of waiting) start(item)
  }, [items, start])

  // Once nothing is queued or running, whatever was stored shows up elsewhere.
  const busy = items.some((item) => item.status !== 'finished')
  const stored = items.some(
    (item) => item.outcome && item.outcome.kind !== 'refused' && item.outcome.kind !== 'cancelled',
  )
  useEffect(() => {
    if (busy || !stored) return
    for (const queryKey of staleAfterUpload) queryClient.invalidateQueries({ queryKey })
  }, [busy, stored, queryClient])

  const cancel = useCallback((id: number) => {
    const controller = controllers.current.get(id)
    if (controller) return controller.abort()
    setItems((current) =>
      current.map((item) =>
        item.id === id && item.status === 'queued'
          ? { ...item, status: 'finished', outcome: { kind: 'cancelled' } }
          : item,
      ),
    )
  }, [])

  const cancelAll = useCallback(() => {
    setItems((current) =>
      current.map((item) =>
        item.status === 'queued' ? { ...item, status: 'finished', outcome: { kind: 'cancelled' } } : item,
      ),
    )
    for (const controller of controllers.current.values()) controller.abort()
  }, [])

  const clearFinished = useCallback(() => {
    setItems((current) => current.filter((item) => item.status !== 'finished'))
  }, [])

  // Leaving the page cancels what is still running.
  useEffect(
    () => () => {
      for (const controller of controllers.current.values()) controller.abort()
    },
    [],
  )

  return { items, add, cancel, cancelAll, clearFinished }
}
