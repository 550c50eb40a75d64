import { parentPort } from 'node:worker_threads'
import { constants, crc32, deflateRawSync } from 'node:zlib'

/** One block to deflate: `input` holds the dictionary (the previous block's last bytes) and then the block. */
export interface DeflateJob {
  input: Uint8Array<ArrayBuffer>
  dictionaryBytes: number
  last: boolean
  level: number
}

/** The block's raw deflate data, ending on a byte boundary (or final when `last`), and its CRC-32. */
export interface DeflateReply {
  deflated: Uint8Array<ArrayBuffer>
  crc: number
}

/**
 * The worker thread of `createParallelGzip`: deflates one block per message, in order, and
 * answers with its bytes (transferred, not copied) and the block's CRC-32. It catches nothing:
 * whatever fails ends the thread, and the pool fails the block it held.
 */
function serve(port: NonNullable<typeof parentPort>): void {
  port.on('message', ({ input, dictionaryBytes, last, level }: DeflateJob) => {
    const block = input.subarray(dictionaryBytes)
    const deflated = deflateRawSync(block, {
      level,
      ...(dictionaryBytes > 0 ? { dictionary: input.subarray(0, dictionaryBytes) } : {}),
      finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
      chunkSize: Math.max(64 * 1024, block.byteLength + 1024),
    })
    // A copy the size of the data: zlib's result may be a view into a larger buffer, all of which would cross.
    const reply: DeflateReply = { deflated: new Uint8Array(deflated), crc: crc32(block) }
    port.postMessage(reply, [reply.deflated.buffer])
  })
}

if (parentPort) serve(parentPort)
