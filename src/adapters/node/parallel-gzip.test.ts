import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32, gunzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { crc32Combine, createParallelGzip } from './parallel-gzip.js'

const blockBytes = 64 * 1024
const gzip = createParallelGzip({ workers: 2, blockBytes })
const work = mkdtempSync(join(tmpdir(), 'parallel-gzip-'))

afterAll(async () => {
  await gzip.close()
  rmSync(work, { recursive: true, force: true })
})

/** Text that compresses like G-code: repeated shapes, varying numbers. */
function text(bytes: number): Uint8Array {
  const lines: string[] = []
  let length = 0
  for (let i = 0; length < bytes; i++) {
    const line = `G1 X${((i * 7919) % 25000) / 100} Y${((i * 104729) % 25000) / 100} E${(i % 997) / 1000}\n`
    lines.push(line)
    length += line.length
  }
  return new TextEncoder().encode(lines.join('')).subarray(0, bytes)
}

/** `input` through a gzip stream, written in chunks of the given sizes (cycled), read as one array. */
async function compress(
  input: Uint8Array,
  chunkSizes: number[] = [64 * 1024],
  stream = gzip.gzip(),
): Promise<Uint8Array> {
  const writing = (async () => {
    const writer = stream.writable.getWriter()
    for (let offset = 0, i = 0; offset < input.byteLength; i++) {
      const size = chunkSizes[i % chunkSizes.length] as number
      await writer.write(input.slice(offset, offset + size))
      offset += size
    }
    await writer.close()
  })()
  const [output] = await Promise.all([collect(stream.readable), writing])
  return output
}

/** Every chunk of `stream`, as one buffer. */
async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = []
  const reader = stream.getReader()
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value)
  return Buffer.concat(chunks)
}

/** The real `gzip -t` accepts it and `gunzip -c` gives the input back; zlib does too. */
function expectStandardGzip(compressed: Uint8Array, input: Uint8Array): void {
  const file = join(work, 'out.gz')
  writeFileSync(file, compressed)
  execFileSync('gzip', ['-t', file])
  expect(Buffer.compare(execFileSync('gzip', ['-dc', file], { maxBuffer: 64 * 1024 * 1024 }), input)).toBe(0)
  expect(Buffer.compare(gunzipSync(compressed), input)).toBe(0)
}

describe('parallel gzip', () => {
  const cases: [string, Uint8Array][] = [
    ['empty input', new Uint8Array(0)],
    ['one byte', Uint8Array.of(42)],
    ['exactly one block', text(blockBytes)],
    ['one block and one byte', text(blockBytes + 1)],
    ['many blocks of compressible text', text(40 * blockBytes + 12345)],
    ['exactly many blocks', text(8 * blockBytes)],
  ]
  for (const [name, input] of cases) {
    it(`writes one standard gzip member: ${name}`, async () => {
      const compressed = await compress(input)
      expectStandardGzip(compressed, input)
      // One member: the header once, and the size in the trailer is the whole input's.
      expect(Buffer.from(compressed).indexOf(Buffer.of(0x1f, 0x8b, 8), 1)).toBe(-1)
      expect(Buffer.from(compressed).readUInt32LE(compressed.byteLength - 4)).toBe(input.byteLength)
    })
  }

  it('compresses about as well as zlib in one piece', async () => {
    const input = text(40 * blockBytes)
    const { gzipSync } = await import('node:zlib')
    const ours = (await compress(input)).byteLength
    expect(ours / gzipSync(input).byteLength).toBeLessThan(1.02)
  })

  it('gives back 10 MB of random bytes exactly, at the default block size', async () => {
    const input = randomBytes(10_000_000)
    const wide = createParallelGzip()
    try {
      expectStandardGzip(await compress(input, [1024 * 1024], wide.gzip()), input)
    } finally {
      await wide.close()
    }
  })

  it('takes input arriving in odd chunk sizes', async () => {
    const input = text(9 * blockBytes + 777)
    const compressed = await compress(input, [1, 7, 4093, 65_537, 3, 200_003, 65_535, 65_536])
    expectStandardGzip(compressed, input)
  })

  it('makes a .tar.gz that tar -xzf extracts', async () => {
    const source = join(work, 'source')
    mkdirSync(join(source, 'blobs'), { recursive: true })
    const files = { 'blobs/text.gcode': text(5 * blockBytes + 3), 'blobs/random.bin': randomBytes(3 * blockBytes + 5) }
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(source, name), bytes)
    const tarBytes = execFileSync('tar', ['-cf', '-', '-C', source, 'blobs'], { maxBuffer: 64 * 1024 * 1024 })
    const archive = join(work, 'archive.tar.gz')
    writeFileSync(archive, await compress(tarBytes, [10_000]))
    const target = join(work, 'target')
    mkdirSync(target)
    execFileSync('tar', ['-xzf', archive, '-C', target])
    for (const [name, bytes] of Object.entries(files)) {
      expect(Buffer.compare(readFileSync(join(target, name)), bytes)).toBe(0)
    }
  })

  it('runs streams side by side on one pool', async () => {
    const inputs = [text(7 * blockBytes + 1), randomBytes(5 * blockBytes), text(3 * blockBytes)]
    const outputs = await Promise.all(inputs.map((input) => compress(input, [30_000])))
    for (const [i, output] of outputs.entries()) {
      expect(Buffer.compare(gunzipSync(output), inputs[i] as Uint8Array)).toBe(0)
    }
  })

  it('takes input only as fast as its reader reads', async () => {
    let pulled = 0
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 16 * 1024
        controller.enqueue(randomBytes(16 * 1024))
      },
    })
    const reader = source.pipeThrough(gzip.gzip()).getReader()
    await reader.read() // the header
    await new Promise((resolve) => setTimeout(resolve, 500))
    // Two workers: four blocks in flight, one being filled and the streams' own small queues.
    expect(pulled).toBeLessThan(8 * blockBytes)
    const before = pulled
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(pulled).toBe(before)
    await reader.cancel()
  })

  it('ends idle workers, and starts new ones for the next stream', async () => {
    const brief = createParallelGzip({ workers: 2, blockBytes, idleMs: 50 })
    try {
      const input = text(6 * blockBytes)
      expect(Buffer.compare(gunzipSync(await compress(input, [64 * 1024], brief.gzip())), input)).toBe(0)
      await new Promise((resolve) => setTimeout(resolve, 400))
      expect(Buffer.compare(gunzipSync(await compress(input, [64 * 1024], brief.gzip())), input)).toBe(0)
    } finally {
      await brief.close()
    }
  })

  it('errors the stream when a worker stops, rather than hanging', async () => {
    // zlib refuses level 42 inside the worker, which then ends: the stream fails with the reason.
    const broken = createParallelGzip({ workers: 2, blockBytes, level: 42 })
    try {
      await expect(compress(text(3 * blockBytes), [64 * 1024], broken.gzip())).rejects.toThrow(
        /gzip failed: its worker thread stopped \(.*level/,
      )
      // The next stream gets fresh workers, and fails the same way.
      await expect(compress(text(100), [64 * 1024], broken.gzip())).rejects.toThrow(/worker thread stopped/)
    } finally {
      await broken.close()
    }
  })

  it('errors the streams still compressing when the pool closes', async () => {
    const closing = createParallelGzip({ workers: 2, blockBytes })
    const stream = closing.gzip()
    const writer = stream.writable.getWriter()
    const reading = collect(stream.readable)
    reading.catch(() => {})
    await writer.write(randomBytes(3 * blockBytes))
    await closing.close()
    await expect(reading).rejects.toThrow(/gzip failed/)
    await expect(writer.closed).rejects.toThrow(/gzip failed/)
  })

  it('combines CRC-32s as zlib would compute them in one piece', () => {
    const a = randomBytes(100_000)
    for (const b of [new Uint8Array(0), randomBytes(1), randomBytes(65_536), randomBytes(1_000_001)]) {
      expect(crc32Combine(crc32(a), crc32(b), b.byteLength)).toBe(crc32(Buffer.concat([a, b])))
    }
  })
})
