import { queryClient } from '../../api/query-client'
import { sessionStore } from '../../api/session'
import { type FolderPlan, folderBelowDrop, type Grouping, planFolders } from './folder-models'
import { failureOf, type Outcome, outcomeOf } from './outcome'
import { staleAfterUpload } from './query-keys'
import { sendUpload, type UploadTarget } from './send-upload'

/** Uploads running at once; more wait their turn. */
export const uploadConcurrency = 3

export interface UploadItem {
  id: number
  file: File
  /** The name to show: the path inside a dropped or chosen folder, else the file name. */
  label: string
  /** Bytes of the file sent so far; a file that ends without being stored keeps what it had sent, which counts for nothing. */
  sentBytes: number
  /**
   * Waiting its turn; sending its bytes; processing (every byte sent, the vault not yet answered:
   * it is reading and storing the file); finished, with its outcome.
   */
  status: 'queued' | 'sending' | 'processing' | 'finished'
  outcome?: Outcome
  /** Set when the file belongs to the model its folder makes (see folder-models.ts). */
  folder?: FolderPlan
  /** Set when the file was added to a chosen model: that model, and the folder in it. */
  target?: UploadTarget & { modelId: string }
}

/** A file as react-dropzone hands it over from a folder drop: with its path inside the folder. */
type FileWithPath = File & { path?: string; relativePath?: string }

/** The path to show: folder drops give `path`, a directory input gives `webkitRelativePath`. */
export function labelOf(file: FileWithPath): string {
  const path = file.relativePath || file.path || file.webkitRelativePath || file.name
  return path.replace(/^\.?\//, '')
}

/** A file that ended without being stored: cancelled, refused with the vault's reason, or failed. */
const stopped = (item: UploadItem) =>
  item.outcome?.kind === 'cancelled' || item.outcome?.kind === 'refused' || item.outcome?.kind === 'failed'

/**
 * The queue as a whole, as it really stands: files done (stored, joined or already in the vault),
 * cancelled, refused and failed; files the vault is processing; and bytes sent of the bytes still
 * meant to arrive. A cancelled, refused or failed file's bytes count neither as sent nor in the total.
 */
export function queueProgress(queue: readonly UploadItem[]) {
  const meant = queue.filter((item) => !stopped(item))
  const total = meant.reduce((sum, item) => sum + item.file.size, 0)
  const sent = meant.reduce((sum, item) => sum + (item.status === 'finished' ? item.file.size : item.sentBytes), 0)
  const done = meant.filter((item) => item.status === 'finished').length
  const count = (kind: string) => queue.filter((item) => item.outcome?.kind === kind).length
  const allDone = meant.length > 0 && done === meant.length
  return {
    total,
    sent,
    done,
    cancelled: count('cancelled'),
    refused: count('refused'),
    failed: count('failed'),
    processing: queue.filter((item) => item.status === 'processing').length,
    percent: total === 0 ? (allDone ? 100 : 0) : Math.round((sent / total) * 100),
    busy: queue.some((item) => item.status !== 'finished'),
  }
}

/*
 * The queue lives for the tab, not for a page: uploads go on while the user browses (the header
 * shows their progress), files dropped on any page join it, and closing the tab while files are
 * on their way asks first. Signing out cancels and forgets it: the next user starts empty.
 */
let items: readonly UploadItem[] = []
let nextId = 1
let nextBatch = 1
/** The model each folder made, by folder key, once its first file is in. */
const folderModels = new Map<string, string>()
const controllers = new Map<number, AbortController>()
const listeners = new Set<() => void>()
/** Something was stored since the queue last ran dry: other pages' data is stale once it does. */
let storedSinceIdle = false

const isBusy = () => items.some((item) => item.status !== 'finished')

function warnBeforeLeaving(event: BeforeUnloadEvent) {
  event.preventDefault()
}

function setItems(next: readonly UploadItem[]): void {
  const wasBusy = isBusy()
  items = next
  const busy = isBusy()
  if (busy && !wasBusy) window.addEventListener('beforeunload', warnBeforeLeaving)
  if (!busy && wasBusy) {
    window.removeEventListener('beforeunload', warnBeforeLeaving)
    if (storedSinceIdle) for (const queryKey of staleAfterUpload) void queryClient.invalidateQueries({ queryKey })
    storedSinceIdle = false
  }
  for (const listener of listeners) listener()
}

const update = (id: number, change: Partial<UploadItem>) =>
  setItems(items.map((item) => (item.id === id ? { ...item, ...change } : item)))

/**
 * The files that may start now, in the queue's order, each with where it goes: a loose file its
 * own way; a folder's file into the folder's model once it is made; else the folder's best-ranked
 * model-making file makes it (named after the folder), while the others wait. A folder whose
 * model-making files all failed lets the rest go their own way.
 */
function startableNow(): { item: UploadItem; target: UploadTarget }[] {
  const queued = items.filter((item) => item.status === 'queued')
  const leading = new Set(
    items.flatMap((item) =>
      (item.status === 'sending' || item.status === 'processing') && item.folder && !folderModels.has(item.folder.key)
        ? [item.folder.key]
        : [],
    ),
  )
  const leaders = new Map<string, number>()
  for (const item of queued) {
    const folder = item.folder
    if (!folder || folderModels.has(folder.key) || leading.has(folder.key) || folder.rank >= 3) continue
    const best = leaders.get(folder.key)
    const current = best === undefined ? undefined : queued.find((candidate) => candidate.id === best)
    if (!current?.folder || folder.rank < current.folder.rank) leaders.set(folder.key, item.id)
  }
  return queued.flatMap((item): { item: UploadItem; target: UploadTarget }[] => {
    if (item.target) return [{ item, target: item.target }]
    const folder = item.folder
    if (!folder) return [{ item, target: {} }]
    const made = folderModels.get(folder.key)
    if (made) return [{ item, target: { modelId: made } }]
    if (leaders.get(folder.key) === item.id) return [{ item, target: { modelName: folder.name } }]
    const waitsForLeader = leading.has(folder.key) || leaders.has(folder.key)
    return waitsForLeader ? [] : [{ item, target: {} }]
  })
}

/** Starts waiting files while fewer than `uploadConcurrency` are running. */
function startWaiting(): void {
  const running = items.filter((item) => item.status === 'sending' || item.status === 'processing').length
  const starting = startableNow().slice(0, uploadConcurrency - running)
  if (starting.length === 0) return
  const ids = new Set(starting.map(({ item }) => item.id))
  setItems(items.map((item) => (ids.has(item.id) ? { ...item, status: 'sending' } : item)))
  for (const { item, target } of starting) send(item, target)
}

function send(item: UploadItem, target: UploadTarget): void {
  const controller = new AbortController()
  controllers.set(item.id, controller)
  sendUpload(
    item.file,
    {
      signal: controller.signal,
      onProgress: (sentBytes) => update(item.id, { status: 'sending', sentBytes }),
      onSent: () => update(item.id, { status: 'processing', sentBytes: item.file.size }),
    },
    target,
  )
    .then(
      (result) => {
        storedSinceIdle = true
        const outcome = outcomeOf(result)
        // The folder's model is the one its first file made or joined (a folder uploaded again finds its model).
        if (item.folder && 'modelId' in outcome && !folderModels.has(item.folder.key))
          folderModels.set(item.folder.key, outcome.modelId)
        return { status: 'finished' as const, sentBytes: item.file.size, outcome }
      },
      (error: unknown) => ({ status: 'finished' as const, outcome: failureOf(error) }),
    )
    .then((finished) => {
      controllers.delete(item.id)
      // The item may be gone: signing out forgets the queue.
      if (items.some((candidate) => candidate.id === item.id)) update(item.id, finished)
      startWaiting()
    })
}

/** Files worth uploading, with the path to show: hidden ones (`.DS_Store`, `.git/…`, which come along with folders) are nobody's models. */
const labelledFiles = (files: File[]) =>
  files.filter((file) => !file.name.startsWith('.')).map((file) => ({ file, label: labelOf(file) }))

const queuedItem = (
  { file, label }: { file: File; label: string },
  where: Pick<UploadItem, 'folder' | 'target'>,
): UploadItem => ({ id: nextId++, file, label, sentBytes: 0, status: 'queued', ...where })

function enqueue(added: UploadItem[]): void {
  setItems([...items, ...added])
  startWaiting()
}

const cancelled = (item: UploadItem): UploadItem =>
  item.status === 'queued' ? { ...item, status: 'finished', outcome: { kind: 'cancelled' } } : item

/** The tab's upload queue, as an external store for `useSyncExternalStore`, and what can be done to it. */
export const uploadQueue = {
  subscribe(listener: () => void): () => void {
    listeners.add(listener)
    return () => listeners.delete(listener)
  },
  getItems: (): readonly UploadItem[] => items,

  /**
   * Queues files (hidden ones stay behind). By default a folder's files make one model, named after the folder; `grouping`
   * 'file' lets each file find or make its own.
   */
  add(files: File[], grouping: Grouping = 'folder'): void {
    const labelled = labelledFiles(files)
    const plans = planFolders(labelled, nextBatch++, grouping)
    enqueue(labelled.map((file, index) => queuedItem(file, plans[index] ? { folder: plans[index] } : {})))
  },

  /**
   * Queues files for the model `modelId`: each goes into it, in its folder below the dropped or
   * chosen folder (a loose file at the top). Hidden files stay behind, as with `add`.
   */
  addToModel(files: File[], modelId: string): void {
    enqueue(
      labelledFiles(files).map((file) =>
        queuedItem(file, { target: { modelId, folder: folderBelowDrop(file.label) || undefined } }),
      ),
    )
  },

  /**
   * A sending upload is aborted (it finishes as cancelled); a waiting one never starts. One being
   * processed is left alone: the vault has every byte and stores it whatever the tab does.
   */
  cancel(id: number): void {
    if (items.find((item) => item.id === id)?.status === 'processing') return
    const controller = controllers.get(id)
    if (controller) {
      controller.abort()
      return
    }
    setItems(items.map((item) => (item.id === id ? cancelled(item) : item)))
  },

  cancelAll(): void {
    setItems(items.map(cancelled))
    for (const item of items) if (item.status === 'sending') controllers.get(item.id)?.abort()
  },

  /** Forgets finished files: all of them, or only those added to the model `modelId`. */
  clearFinished(modelId?: string): void {
    setItems(
      items.filter((item) => item.status !== 'finished' || (modelId !== undefined && item.target?.modelId !== modelId)),
    )
  },
}

sessionStore.subscribe(() => {
  if (sessionStore.getState().status !== 'signed-out' || items.length === 0) return
  uploadQueue.cancelAll()
  folderModels.clear()
  setItems([])
})
