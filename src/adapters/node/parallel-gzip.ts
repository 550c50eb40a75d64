import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { Compression } from '../../core/runtime/compression.js'
import type { DeflateJob, DeflateReply } from './parallel-gzip-worker.js'
import { workerEntry } from './worker-entry.js'
import { zlibCompression } from './zlib-compression.js'

export interface ParallelGzipOptions {
  /** Worker threads deflating at once; `availableParallelism()` by default. */
  workers?: number
  /** Bytes of input per block. */
  blockBytes?: number
  /** zlib's compression level, 6 by default as gzip's and pigz's. */
  level?: number
  /** How long a worker waits for the next block before it ends (between backups none is kept). */
  idleMs?: number
}

export interface ParallelGzip extends Compression {
  /** Terminates the workers; streams still compressing fail. */
  close(): Promise<void>
}

/** Deflate's window: each block is compressed with this much of the previous one as its dictionary. */
const windowBytes = 32 * 1024
const defaultBlockBytes = 512 * 1024

/**
 * gzip as pigz writes it: the input is cut into blocks, deflated on a pool of worker threads,
 * each with the previous block's last 32 KiB as its dictionary and ending on a byte boundary
 * (a sync flush), the last one final. The blocks in order make one deflate stream, written as
 * one standard gzip member (header, blocks, CRC-32 and size), so `gzip`, `tar -xzf` and every
 * gzip reader take it as they take zlib's, and the archive is about the same size.
 * A stream holds at most two blocks per worker in flight and takes input only while its reader
 * keeps up, so memory stays flat at any size. A worker that stops errors the streams it served.
 * Decompression stays zlib's (it cannot be split this way and already runs off the main thread).
 */
export function createParallelGzip(options: ParallelGzipOptions = {}): ParallelGzip {
  const workers = options.workers ?? availableParallelism()
  const blockBytes = options.blockBytes ?? defaultBlockBytes
  if (blockBytes < windowBytes) throw new Error(`a block must hold at least ${windowBytes} bytes`)
  const pool = createDeflatePool(workers, options.idleMs ?? 10_000)
  const settings = { blockBytes, level: options.level ?? 6, inFlight: 2 * workers }
  return {
    gzip: () => gzipStream(pool, settings),
    gunzip: zlibCompression.gunzip,
    close: pool.close,
  }
}

interface DeflatePool {
  deflate(job: DeflateJob): Promise<DeflateReply>
  close(): Promise<void>
}

interface Pending {
  bytes: number
  reply: Promise<DeflateReply>
  done?: DeflateReply
}

function gzipStream(
  pool: DeflatePool,
  { blockBytes, level, inFlight }: { blockBytes: number; level: number; inFlight: number },
): TransformStream<Uint8Array, Uint8Array> {
  let input = new Uint8Array(blockBytes)
  let dictionaryBytes = 0
  let filled = 0
  let crc = 0
  let size = 0
  const pending: Pending[] = []
  // Errors the stream as soon as a block fails, not only when its turn to leave comes.
  let fail: (error: unknown) => void = () => {}

  const dispatch = (last: boolean) => {
    const end = dictionaryBytes + filled
    const job: DeflateJob = { input: input.subarray(0, end), dictionaryBytes, last, level }
    if (!last) {
      const next = new Uint8Array(windowBytes + blockBytes)
      next.set(input.subarray(end - windowBytes, end))
      input = next
      dictionaryBytes = windowBytes
    }
    const item: Pending = { bytes: filled, reply: pool.deflate(job) }
    item.reply.then((reply) => (item.done = reply), fail)
    pending.push(item)
    filled = 0
  }

  const emit = async (controller: TransformStreamDefaultController<Uint8Array>) => {
    const head = pending[0] as Pending
    const reply = await head.reply
    pending.shift()
    crc = crc32Combine(crc, reply.crc, head.bytes)
    if (reply.deflated.byteLength > 0) controller.enqueue(reply.deflated)
  }

  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      fail = (error) => controller.error(error)
      controller.enqueue(gzipHeader(level))
    },
    async transform(chunk, controller) {
      size += chunk.byteLength
      for (let offset = 0; offset < chunk.byteLength; ) {
        const taken = Math.min(blockBytes - filled, chunk.byteLength - offset)
        input.set(chunk.subarray(offset, offset + taken), dictionaryBytes + filled)
        filled += taken
        offset += taken
        if (filled < blockBytes) continue
        dispatch(false)
        // Blocks leave in order: the finished ones at the head at once, the head itself when the pool is full.
        while (pending.length >= inFlight || pending[0]?.done) await emit(controller)
      }
    },
    async flush(controller) {
      dispatch(true)
      while (pending.length > 0) await emit(controller)
      const trailer = new DataView(new ArrayBuffer(8))
      trailer.setUint32(0, crc >>> 0, true)
      trailer.setUint32(4, size % 2 ** 32, true)
      controller.enqueue(new Uint8Array(trailer.buffer))
    },
  })
}

/** gzip's 10-byte header: deflate, no name, no time, the level's hint (XFL) and Unix as the system, as zlib writes it. */
function gzipHeader(level: number): Uint8Array {
  const extraFlags = level === 9 ? 2 : level === 1 ? 4 : 0
  return Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, extraFlags, 3)
}

/**
 * The CRC-32 of A followed by B from the CRC of each and B's length (zlib's `crc32_combine`,
 * which Node does not offer): the workers check-sum their own blocks.
 */
export function crc32Combine(crcA: number, crcB: number, bytesB: number): number {
  return (multiplyModP(xPower8n(bytesB), crcA) ^ crcB) >>> 0
}

const polynomial = 0xedb88320
/** x^(2^k) modulo the CRC polynomial, for k = 0..31 (reflected, as zlib keeps them). */
const xPowers2k = (() => {
  const table = new Uint32Array(32)
  let p = 0x40000000 // x^1
  table[0] = p
  for (let k = 1; k < 32; k++) table[k] = p = multiplyModP(p, p)
  return table
})()

/** a(x) · b(x) modulo the polynomial, in zlib's reflected bit order. */
function multiplyModP(a: number, b: number): number {
  let m = 0x80000000
  let product = 0
  for (;;) {
    if (a & m) {
      product ^= b
      if ((a & (m - 1)) === 0) break
    }
    m >>>= 1
    b = b & 1 ? (b >>> 1) ^ polynomial : b >>> 1
  }
  return product >>> 0
}

/** x^(8n) modulo the polynomial: appending n zero bytes. */
function xPower8n(n: number): number {
  let p = 0x80000000 // x^0
  for (let k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2) p = multiplyModP(xPowers2k[k % 32] as number, p)
  return p
}

interface Task {
  job: DeflateJob
  resolve(reply: DeflateReply): void
  reject(error: Error): void
}

interface Slot {
  worker: Worker
  task?: Task
  error?: Error
  idle?: ReturnType<typeof setTimeout>
}

/**
 * At most `size` worker threads, started on demand and kept for the next block, each deflating
 * one block at a time; blocks wait their turn in order. An idle worker does not keep the
 * process alive, and ends after `idleMs`. A worker that stops fails the block it held and is
 * replaced by the next one.
 */
function createDeflatePool(size: number, idleMs: number): DeflatePool {
  const entry = workerEntry('parallel-gzip-worker', import.meta.url)
  const slots = new Set<Slot>()
  const queue: Task[] = []
  let closed = false

  function pump(): void {
    while (queue.length > 0 && !closed) {
      const slot = [...slots].find((candidate) => !candidate.task) ?? (slots.size < size ? spawn() : undefined)
      if (!slot) return
      const task = queue.shift() as Task
      clearTimeout(slot.idle)
      slot.task = task
      slot.worker.ref()
      slot.worker.postMessage(task.job, [task.job.input.buffer])
    }
  }

  function spawn(): Slot {
    const worker = new Worker(entry.source, { eval: entry.eval })
    const slot: Slot = { worker }
    slots.add(slot)
    worker.on('message', (reply: DeflateReply) => {
      const task = finish(slot)
      task?.resolve(reply)
      pump()
    })
    worker.on('error', (error) => {
      slot.error = error
    })
    worker.on('exit', (code) => {
      slots.delete(slot)
      const task = slot.task
      slot.task = undefined
      clearTimeout(slot.idle)
      const why = closed ? 'the vault is shutting down' : (slot.error?.message ?? `exit code ${code}`)
      task?.reject(new Error(`gzip failed: its worker thread stopped (${why})`))
      pump()
    })
    return slot
  }

  function finish(slot: Slot): Task | undefined {
    const task = slot.task
    slot.task = undefined
    slot.worker.unref()
    clearTimeout(slot.idle)
    slot.idle = setTimeout(() => {
      // Out of the pool first, so no block is handed to a worker on its way out.
      slots.delete(slot)
      void slot.worker.terminate()
    }, idleMs)
    slot.idle.unref()
    return task
  }

  return {
    deflate(job) {
      if (closed) return Promise.reject(new Error('gzip failed: the vault is shutting down'))
      return new Promise<DeflateReply>((resolve, reject) => {
        queue.push({ job, resolve, reject })
        pump()
      })
    },
    async close() {
      closed = true
      for (const task of queue.splice(0)) task.reject(new Error('gzip failed: the vault is shutting down'))
      await Promise.all([...slots].map((slot) => slot.worker.terminate()))
    },
  }
}
