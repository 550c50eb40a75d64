import { Worker } from 'node:worker_threads'
import type { StorageConfig } from '../../core/config/config.js'
import { FormatError } from '../../core/formats/types.js'
import type { Extracted, ExtractOptions } from '../../core/ingest/extract.js'
import type { ExtractStoredFile, StoredBlob } from '../../core/ingest/extractor.js'
import type { FileFormat } from '../../core/ingest/file-formats.js'
import type { Logger } from '../../core/runtime/logger.js'
import type { ExtractJob, ExtractReply, ExtractWorkerData } from './extract-worker.js'
import { workerEntry } from './worker-entry.js'

export interface WorkerExtractorOptions {
  /** Where the workers read blobs from: each opens the store itself. */
  storage: StorageConfig
  /** Most files read at once; more wait their turn. */
  workers: number
  /** Budget of one file, from the moment a worker takes it. */
  timeoutMs: number
  /** V8 heap budget of one worker (`resourceLimits.maxOldGenerationSizeMb`). */
  memoryMb: number
  logger: Logger
}

export interface WorkerExtractor {
  extract: ExtractStoredFile
  /** Refuses new files, fails the waiting ones and terminates every worker. */
  close(): Promise<void>
}

/**
 * Young generation of each worker (`resourceLimits.maxYoungGenerationSizeMb`: two 2 MiB
 * semi-spaces). The readers' garbage is mostly typed arrays behind small objects, so V8's
 * default (16 MiB semi-spaces) only kept up to 32 MiB of young space resident per worker:
 * over the upload burst's files the worker's heap peaked at 50 MiB with the default and
 * 19 MiB with this, its ArrayBuffers unchanged (measured with scripts/campaigns/upload-burst.ts).
 */
const workerYoungGenerationMb = 6

interface Job extends ExtractJob {
  resolve(extracted: Extracted): void
  reject(error: unknown): void
}

interface Slot {
  worker: Worker
  ready: boolean
  job?: Job
  timer?: ReturnType<typeof setTimeout>
  overBudget?: 'time'
  error?: Error
}

/**
 * Reads uploaded files in a bounded pool of worker threads, so CPU-heavy formats and the
 * thumbnail renderer never run on the request thread. At most `workers` threads exist;
 * they start on demand and stay for the next file. A file over its time budget (its worker
 * is terminated) or its heap budget (V8 stops the worker) resolves as an opaque file with a
 * warning, and the worker is replaced by the next file that needs one. `FormatError('unsafe')`
 * from the reader rejects as such; any other failure rejects with its message.
 */
export function createWorkerExtractor(options: WorkerExtractorOptions): WorkerExtractor {
  const entry = workerEntry('extract-worker', import.meta.url)
  const slots = new Set<Slot>()
  const queue: Job[] = []
  let closed = false

  const starting = () => [...slots].filter((slot) => !slot.ready).length

  function pump(): void {
    while (queue.length > 0 && !closed) {
      const slot = [...slots].find((candidate) => candidate.ready && !candidate.job)
      if (slot) {
        run(slot, queue.shift() as Job)
        continue
      }
      if (slots.size < options.workers && starting() < queue.length) {
        spawn()
        continue
      }
      return
    }
  }

  function spawn(): void {
    const data: ExtractWorkerData = { storage: options.storage }
    const worker = new Worker(entry.source, {
      eval: entry.eval,
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb, maxYoungGenerationSizeMb: workerYoungGenerationMb },
    })
    const slot: Slot = { worker, ready: false }
    slots.add(slot)
    options.logger.debug('file reader started', { readers: slots.size })
    worker.on('message', (reply: ExtractReply) => {
      if (reply.kind === 'ready') {
        slot.ready = true
        // An idle worker must not keep the process alive; a busy one does (see run).
        worker.unref()
        return pump()
      }
      const job = finish(slot)
      if (!job) return
      if (reply.kind === 'done') job.resolve(reply.extracted)
      else job.reject(reply.unsafe ? new FormatError('unsafe', reply.message) : new Error(reply.message))
      pump()
    })
    worker.on('error', (error) => {
      slot.error = error
    })
    worker.on('exit', (code) => {
      slots.delete(slot)
      const job = finish(slot) ?? (slot.ready ? undefined : queue.shift())
      if (job) settleLost(job, slot, code)
      pump()
    })
  }

  function run(slot: Slot, job: Job): void {
    slot.job = job
    slot.worker.ref()
    slot.timer = setTimeout(() => {
      slot.overBudget = 'time'
      void slot.worker.terminate()
    }, options.timeoutMs)
    slot.worker.postMessage({ format: job.format, blob: job.blob, options: job.options } satisfies ExtractJob)
  }

  function finish(slot: Slot): Job | undefined {
    const job = slot.job
    clearTimeout(slot.timer)
    slot.job = undefined
    slot.worker.unref()
    return job
  }

  /** The worker went away holding this job (or, failing to start, before it could take it). */
  function settleLost(job: Job, slot: Slot, code: number): void {
    const over =
      slot.overBudget === 'time'
        ? `reading it took longer than ${options.timeoutMs} ms, the limit for one file`
        : (slot.error as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `reading it needed more than ${options.memoryMb} MiB of memory, the limit for one file`
          : undefined
    if (closed) job.reject(new Error('the vault is shutting down'))
    else if (!over || !slot.ready) {
      job.reject(new Error(`the file reader stopped (${slot.error?.message ?? `exit code ${code}`})`))
    } else {
      options.logger.warn('file reading over budget', { sha256: job.blob.sha256, format: job.format, reason: over })
      job.resolve({ metadata: {}, warnings: [`Stored as an opaque file: ${over}.`] })
    }
  }

  return {
    extract(format: FileFormat, blob: StoredBlob, options: ExtractOptions) {
      if (closed) return Promise.reject(new Error('the vault is shutting down'))
      return new Promise<Extracted>((resolve, reject) => {
        const job = { format, blob: { sha256: blob.sha256, size: blob.size }, options, resolve, reject }
        // An upload waits for its reading; rendering is background work, so readings go ahead of it.
        const firstRender = options.render ? -1 : queue.findIndex((waiting) => waiting.options.render)
        queue.splice(firstRender < 0 ? queue.length : firstRender, 0, job)
        pump()
      })
    },
    async close() {
      closed = true
      for (const job of queue.splice(0)) job.reject(new Error('the vault is shutting down'))
      await Promise.all([...slots].map((slot) => slot.worker.terminate()))
    },
  }
}
