import { mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileStream } from './file-stream.js'

/** How many of this process's file descriptors are open on `path`. */
async function openHandlesOn(path: string): Promise<number> {
  let count = 0
  for (const fd of await readdir('/proc/self/fd')) {
    if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === path) count++
  }
  return count
}

describe('readFileStream', () => {
  let dir: string
  let path: string
  const bytes = new Uint8Array(600 * 1024).map((_, i) => i % 251)

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'file-stream-'))
    path = join(dir, 'blob')
    await writeFile(path, bytes)
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('reads the whole file, or exactly the inclusive range asked for', async () => {
    const whole = Buffer.from(await new Response(readFileStream(path)).arrayBuffer())
    expect(whole.equals(bytes)).toBe(true)
    const range = Buffer.from(await new Response(readFileStream(path, { start: 1000, end: 300_000 })).arrayBuffer())
    expect(range.equals(bytes.subarray(1000, 300_001))).toBe(true)
    expect(await openHandlesOn(path)).toBe(0)
  })

  it('opens nothing for a stream that is made and never read (a 304, a HEAD)', async () => {
    const streams = Array.from({ length: 5 }, () => readFileStream(path))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await openHandlesOn(path)).toBe(0)
    expect(streams).toHaveLength(5)
  })

  it('closes the file as soon as a reader cancels part way', async () => {
    const reader = readFileStream(path).getReader()
    expect((await reader.read()).value?.byteLength).toBe(256 * 1024)
    expect(await openHandlesOn(path)).toBe(1)
    await reader.cancel()
    expect(await openHandlesOn(path)).toBe(0)
  })
})
