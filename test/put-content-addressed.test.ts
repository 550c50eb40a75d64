import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFsBlobStore } from '../src/adapters/fs/fs-blob-store.js'
import { createNativeSha256 } from '../src/adapters/node/native-sha256.js'
import type { BlobStore } from '../src/core/blobs/blob-store.js'
import { putContentAddressed } from '../src/core/blobs/put-content-addressed.js'

let root: string
let store: BlobStore
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'put-content-'))
  store = await createFsBlobStore(root)
})
afterAll(() => rm(root, { recursive: true, force: true }))

/** `bytes` in chunks of 1,000, as a request body arrives. */
const chunked = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < bytes.length; at += 1000) controller.enqueue(bytes.slice(at, at + 1000))
      controller.close()
    },
  })

const random = (size: number) => crypto.getRandomValues(new Uint8Array(size))
const readBack = async (key: string) => new Uint8Array(await new Response((await store.get(key))?.stream).arrayBuffer())

describe('storing content with small bodies kept', () => {
  it('answers the bytes of a body no larger than asked, and stores them as well', async () => {
    const bytes = random(4_500)
    const stored = await putContentAddressed(store, createNativeSha256, chunked(bytes), { keepUpTo: 4_500 })
    expect(stored).toMatchObject({ size: 4_500, created: true })
    expect(stored.bytes).toEqual(bytes)
    expect(await readBack(stored.sha256)).toEqual(bytes)
  })

  it('keeps nothing of a larger body, or when not asked', async () => {
    const bytes = random(4_501)
    const larger = await putContentAddressed(store, createNativeSha256, chunked(bytes), { keepUpTo: 4_500 })
    expect(larger.bytes).toBeUndefined()
    expect(await readBack(larger.sha256)).toEqual(bytes)
    const unasked = await putContentAddressed(store, createNativeSha256, chunked(random(10)))
    expect(unasked.bytes).toBeUndefined()
  })
})
