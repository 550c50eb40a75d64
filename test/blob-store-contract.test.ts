import { createHash, randomBytes } from 'node:crypto'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { type AddressInfo, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { createFsBlobStore } from '../src/adapters/fs/fs-blob-store.js'
import { createNativeSha256 } from '../src/adapters/node/native-sha256.js'
import { createS3BackupSink } from '../src/adapters/s3/s3-backup-sink.js'
import { createS3BlobStore } from '../src/adapters/s3/s3-blob-store.js'
import { createS3Client } from '../src/adapters/s3/s3-client.js'
import type { BlobStore } from '../src/core/blobs/blob-store.js'
import type { CreateSha256 } from '../src/core/blobs/hasher.js'
import { createPortableSha256 } from '../src/core/blobs/portable-sha256.js'
import { putContentAddressed } from '../src/core/blobs/put-content-addressed.js'
import type { S3Config } from '../src/core/config/config.js'
import type { ComponentHealth } from '../src/core/health/component.js'
import { listObjectKeys, type S3TestServer, startS3Server } from './support/s3-server.js'

const MiB = 1024 * 1024
const missingKey = '0'.repeat(64)

interface Backend {
  /** A fresh, empty store beside the earlier ones, and every name it holds, staging included. */
  openStore(): Promise<{ store: BlobStore; storedNames(): Promise<string[]> }>
  stop(): Promise<void>
}

async function startLocalBackend(): Promise<Backend> {
  const parent = await mkdtemp(join(tmpdir(), 'blob-contract-'))
  return {
    async openStore() {
      const root = join(parent, crypto.randomUUID())
      const storedNames = async () => {
        const entries = await readdir(root, { recursive: true, withFileTypes: true })
        return (
          entries
            // owner.json marks the process's own staging directory; it is no stored bytes.
            .filter((entry) => entry.isFile() && entry.name !== 'owner.json')
            .map((entry) => join(entry.parentPath, entry.name))
            .sort()
        )
      }
      return { store: await createFsBlobStore(root), storedNames }
    },
    stop: () => rm(parent, { recursive: true, force: true }),
  }
}

async function startS3Backend(): Promise<Backend> {
  const server = await startS3Server()
  const bucket = await server.createBucket()
  const client = createS3Client(server.configFor(bucket))
  return {
    async openStore() {
      const prefix = `${crypto.randomUUID()}/blobs/`
      return {
        store: createS3BlobStore({ client, bucket, prefix }),
        storedNames: () => listObjectKeys(client, bucket, prefix),
      }
    },
    async stop() {
      client.destroy()
      await server.stop()
    },
  }
}

/** Streams `bytes` in chunks of an odd size, so chunks straddle part boundaries; then ends, or fails with `failure`. */
function streamOf(bytes: Uint8Array, failure?: Error): ReadableStream<Uint8Array> {
  const chunkSize = 65_537
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return failure ? controller.error(failure) : controller.close()
      controller.enqueue(bytes.slice(offset, offset + chunkSize))
      offset += chunkSize
    },
  })
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

const readAll = async (stream: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(stream).arrayBuffer())

const put = (store: BlobStore, bytes: Uint8Array, createSha256: CreateSha256 = createNativeSha256) =>
  putContentAddressed(store, createSha256, streamOf(bytes))

/** Re-reads the blob and hashes it with node:crypto: this is what catches chunk-framing corruption. */
async function expectStored(store: BlobStore, key: string, bytes: Uint8Array) {
  expect(await store.stat(key)).toEqual({ size: bytes.length })
  const body = await store.get(key)
  expect(body?.size).toBe(bytes.length)
  expect(sha256Of(await readAll(body!.stream))).toBe(sha256Of(bytes))
}

async function listAll(store: BlobStore) {
  const entries: { key: string; size: number }[] = []
  for await (const { key, size } of store.list()) entries.push({ key, size })
  return entries.sort((a, b) => a.key.localeCompare(b.key))
}

describe.each([
  { name: 'a local directory', start: startLocalBackend },
  { name: 'an S3 bucket', start: startS3Backend },
])('blob store in $name', ({ start }) => {
  let backend: Backend
  let store: BlobStore
  let storedNames: () => Promise<string[]>
  beforeAll(async () => {
    backend = await start()
  })
  afterAll(() => backend?.stop())
  beforeEach(async () => {
    ;({ store, storedNames } = await backend.openStore())
  })

  describe.each([
    { name: 'native', createSha256: createNativeSha256 },
    { name: 'portable', createSha256: createPortableSha256 },
  ])('hashing with the $name SHA-256', ({ createSha256 }) => {
    test.each([0, 1, 5000, 300 * 1024])(
      '%i bytes are stored under their SHA-256 and read back unchanged',
      async (size) => {
        const bytes = randomBytes(size)
        const stored = await put(store, bytes, createSha256)
        expect(stored).toEqual({ sha256: sha256Of(bytes), size, created: true })
        await expectStored(store, stored.sha256, bytes)
      },
    )

    test('a second upload of the same bytes stores nothing new', async () => {
      const bytes = randomBytes(10_000)
      await put(store, bytes, createSha256)
      const namesBefore = await storedNames()
      const again = await put(store, bytes, createSha256)
      expect(again).toEqual({ sha256: sha256Of(bytes), size: bytes.length, created: false })
      expect(await storedNames()).toEqual(namesBefore)
      await expectStored(store, again.sha256, bytes)
    })

    test('a 20 MiB upload, large enough to go in several parts, is read back unchanged', async () => {
      const bytes = randomBytes(20 * MiB)
      const stored = await put(store, bytes, createSha256)
      expect(stored).toEqual({ sha256: sha256Of(bytes), size: bytes.length, created: true })
      await expectStored(store, stored.sha256, bytes)
    }, 60_000)
  })

  test('a ranged read returns exactly those bytes and the size of the whole blob', async () => {
    const bytes = randomBytes(100_000)
    const { sha256 } = await put(store, bytes)
    // No `{ start: 0, end: 0 }`: s3rver reads an end of 0 as "to the end" and sends the whole blob.
    const ranges = [
      { start: 0, end: 9 },
      { start: 50_000, end: 50_000 },
      { start: 65_000, end: 70_000 },
      { start: 99_999, end: 99_999 },
      { start: 0, end: 99_999 },
    ]
    for (const range of ranges) {
      const body = await store.get(sha256, range)
      expect(body?.size).toBe(bytes.length)
      expect(sha256Of(await readAll(body!.stream))).toBe(sha256Of(bytes.subarray(range.start, range.end + 1)))
    }
  })

  test('reading or sizing a missing blob gives null', async () => {
    expect(await store.get(missingKey)).toBeNull()
    expect(await store.get(missingKey, { start: 0, end: 9 })).toBeNull()
    expect(await store.stat(missingKey)).toBeNull()
  })

  test('deleting a missing blob succeeds', async () => {
    await expect(store.delete(missingKey)).resolves.toBeUndefined()
  })

  test('a deleted blob can no longer be read or listed', async () => {
    const { sha256 } = await put(store, randomBytes(1000))
    await store.delete(sha256)
    expect(await store.stat(sha256)).toBeNull()
    expect(await store.get(sha256)).toBeNull()
    expect(await listAll(store)).toEqual([])
  })

  test('listing shows exactly the committed blobs with their sizes', async () => {
    const stored = await Promise.all([1, 1000, 70_000].map((size) => put(store, randomBytes(size))))
    const expected = stored
      .map(({ sha256, size }) => ({ key: sha256, size }))
      .sort((a, b) => a.key.localeCompare(b.key))
    expect(await listAll(store)).toEqual(expected)
  })

  test('listing says when each blob was written', async () => {
    const before = Date.now()
    await put(store, randomBytes(100))
    const after = Date.now()
    const listed = []
    for await (const blob of store.list()) listed.push(blob)
    expect(listed).toHaveLength(1)
    // S3 keeps whole seconds.
    expect(listed[0]!.modifiedAt.getTime()).toBeGreaterThanOrEqual(before - 1000)
    expect(listed[0]!.modifiedAt.getTime()).toBeLessThanOrEqual(after + 1000)
  })

  test('removing leftovers never touches an upload still being staged, however long it pauses', async () => {
    const bytes = randomBytes(300_000)
    let resume: () => void = () => {}
    const paused = new Promise<void>((resolve) => (resume = resolve))
    const staging = store.stage(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(bytes.subarray(0, 100_000))
          await paused
          controller.enqueue(bytes.subarray(100_000))
          controller.close()
        },
      }),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await store.removeLeftovers()).toEqual({ files: 0, bytes: 0 })
    resume()
    const staged = await staging
    await staged.commit(sha256Of(bytes))
    await expectStored(store, sha256Of(bytes), bytes)
  })

  test('staged bytes stay unlisted until committed, then read back under their key', async () => {
    const bytes = randomBytes(5000)
    const staged = await store.stage(streamOf(bytes))
    expect(staged.size).toBe(bytes.length)
    expect(await listAll(store)).toEqual([])
    await staged.commit('cover.png')
    expect(await listAll(store)).toEqual([{ key: 'cover.png', size: bytes.length }])
    await expectStored(store, 'cover.png', bytes)
  })

  test('discarding staged bytes leaves nothing behind', async () => {
    const staged = await store.stage(streamOf(randomBytes(5000)))
    await staged.discard()
    expect(await storedNames()).toEqual([])
  })

  test.each([1000, 12 * MiB])(
    'an upload whose body fails after %i bytes fails with that error and leaves nothing behind',
    async (failAfter) => {
      const kept = await put(store, randomBytes(10))
      const namesBefore = await storedNames()
      const partial = randomBytes(failAfter)
      const failure = new Error('client went away')
      await expect(putContentAddressed(store, createNativeSha256, streamOf(partial, failure))).rejects.toBe(failure)
      expect(await store.stat(sha256Of(partial))).toBeNull()
      expect(await listAll(store)).toEqual([{ key: kept.sha256, size: 10 }])
      expect(await storedNames()).toEqual(namesBefore)
    },
    30_000,
  )

  test.each(['../x', 'A', 'a/b', ''])('the key %j is rejected by every operation', async (key) => {
    await expect(store.get(key)).rejects.toThrow('invalid blob key')
    await expect(store.stat(key)).rejects.toThrow('invalid blob key')
    await expect(store.delete(key)).rejects.toThrow('invalid blob key')
    const staged = await store.stage(streamOf(randomBytes(10)))
    await expect(staged.commit(key)).rejects.toThrow('invalid blob key')
    await staged.discard()
    expect(await storedNames()).toEqual([])
  })

  test('stores side by side, like blobs and thumbnails, do not see each other', async () => {
    const { store: neighbour } = await backend.openStore()
    const { sha256 } = await put(store, randomBytes(100))
    expect(await neighbour.stat(sha256)).toBeNull()
    expect(await listAll(neighbour)).toEqual([])
  })

  test('health passes and names the storage kind', async () => {
    expect(await store.checkHealth()).toMatchObject({ status: 'pass', details: { kind: store.kind } })
  })
})

describe('S3 adapters', () => {
  let server: S3TestServer
  let bucket: string
  beforeAll(async () => {
    server = await startS3Server()
    bucket = await server.createBucket()
  })
  afterAll(() => server?.stop())

  /** A failed check says why in a few words, and gives away no endpoint, bucket name or credentials. */
  function expectDiscreetFailure(health: ComponentHealth, config: S3Config, reason: RegExp) {
    expect(health.status).toBe('fail')
    expect(health.reason).toMatch(reason)
    for (const secret of [config.endpoint!, '127.0.0.1', config.bucket, config.credentials!.secretAccessKey]) {
      expect(health.reason).not.toContain(secret)
    }
  }

  /** The names of the commands `client` sends from now on, in order. */
  function recordCommands(client: S3Client): string[] {
    const commands: string[] = []
    client.middlewareStack.add(
      (next, context) => (args) => {
        commands.push(String(context.commandName))
        return next(args)
      },
      { step: 'initialize' },
    )
    return commands
  }

  test('a 20 MiB blob is uploaded in 8 MiB parts, then copied into place', async () => {
    const client = createS3Client(server.configFor(bucket))
    const commands = recordCommands(client)
    const bytes = randomBytes(20 * MiB)
    const store = createS3BlobStore({ client, bucket, prefix: 'parts/' })
    const { sha256 } = await put(store, bytes)
    await expectStored(store, sha256, bytes)
    expect(commands.filter((name) => name === 'UploadPartCommand')).toHaveLength(3)
    expect(commands).toEqual(
      expect.arrayContaining(['CreateMultipartUploadCommand', 'CompleteMultipartUploadCommand', 'CopyObjectCommand']),
    )
    client.destroy()
  }, 60_000)

  test('bytes committed under a key already stored are not copied over it: the stored object stays as it was', async () => {
    const client = createS3Client(server.configFor(bucket))
    const prefix = `${crypto.randomUUID()}/`
    const store = createS3BlobStore({ client, bucket, prefix })
    const bytes = randomBytes(5000)
    const key = sha256Of(bytes)
    await (await store.stage(streamOf(bytes))).commit(key)
    const commands = recordCommands(client)
    // What a second replica storing the same new bytes does after its own look found the key missing.
    await (await store.stage(streamOf(bytes))).commit(key)
    expect(commands).not.toContain('CopyObjectCommand')
    expect(await listObjectKeys(client, bucket, prefix)).toEqual([`${prefix}${key.slice(0, 2)}/${key}`])
    await expectStored(store, key, bytes)
    client.destroy()
  })

  test('staging objects a crash left are removed once an hour old, not before', async () => {
    const client = createS3Client(server.configFor(bucket))
    const prefix = `${crypto.randomUUID()}/`
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: `${prefix}.staging/left-by-a-crash`, Body: randomBytes(1234) }),
    )
    const now = createS3BlobStore({ client, bucket, prefix })
    expect(await now.removeLeftovers()).toEqual({ files: 0, bytes: 0 })
    const later = createS3BlobStore({
      client,
      bucket,
      prefix,
      clock: { now: () => new Date(Date.now() + 2 * 3_600_000) },
    })
    expect(await later.removeLeftovers()).toEqual({ files: 1, bytes: 1234 })
    expect(await listObjectKeys(client, bucket, prefix)).toEqual([])
    client.destroy()
  })

  test('a client from createS3Client stores a streamed body byte for byte', async () => {
    // With the SDK's default checksum settings, s3rver keeps the aws-chunked framing as content.
    const client = createS3Client(server.configFor(bucket))
    const bytes = randomBytes(100_000)
    const body = Readable.from([bytes.subarray(0, 40_000), bytes.subarray(40_000)])
    await client.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'streamed', Body: body, ContentLength: bytes.length }),
    )
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: 'streamed' }))
    expect(sha256Of(await object.Body!.transformToByteArray())).toBe(sha256Of(bytes))
    client.destroy()
  })

  test('a blob store whose bucket is missing fails its health check', async () => {
    const config = server.configFor(`missing-${crypto.randomUUID()}`)
    const client = createS3Client(config)
    const health = await createS3BlobStore({ client, bucket: config.bucket, prefix: 'blobs/' }).checkHealth()
    expectDiscreetFailure(health, config, /^bucket unreachable \(NoSuchBucket/)
    expect(health.details).toEqual({ kind: 's3' })
    client.destroy()
  })

  test('the backup sink is healthy while its bucket answers', async () => {
    expect(await createS3BackupSink(server.configFor(bucket)).checkHealth()).toEqual({
      status: 'pass',
      details: { bucket_reachable: true },
    })
  })

  test('a backup sink whose bucket is missing fails its health check', async () => {
    const config = server.configFor(`missing-${crypto.randomUUID()}`)
    const health = await createS3BackupSink(config).checkHealth()
    expectDiscreetFailure(health, config, /^backup bucket unreachable \(NoSuchBucket/)
    expect(health.details).toEqual({ bucket_reachable: false })
  })

  test('health checks fail within seconds once the S3 server is down', async () => {
    const down = await startS3Server()
    const config = down.configFor(await down.createBucket())
    const client = createS3Client(config)
    const store = createS3BlobStore({ client, bucket: config.bucket, prefix: 'blobs/' })
    const sink = createS3BackupSink(config)
    expect((await store.checkHealth()).status).toBe('pass')
    await down.stop()

    const startedAt = Date.now()
    const [storeHealth, sinkHealth] = await Promise.all([store.checkHealth(), sink.checkHealth()])
    expect(Date.now() - startedAt).toBeLessThan(5000)
    expectDiscreetFailure(storeHealth, config, /^bucket unreachable \(ECONNREFUSED\)$/)
    expectDiscreetFailure(sinkHealth, config, /^backup bucket unreachable \(ECONNREFUSED\)$/)
    client.destroy()
  }, 15_000)

  test('health checks give up after a few seconds when the server never answers', async () => {
    const sockets = new Set<Socket>()
    const silent = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const config = {
      ...server.configFor(bucket),
      endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
    }
    const client = createS3Client(config)

    const startedAt = Date.now()
    const [storeHealth, sinkHealth] = await Promise.all([
      createS3BlobStore({ client, bucket, prefix: 'blobs/' }).checkHealth(),
      createS3BackupSink(config).checkHealth(),
    ])
    expect(Date.now() - startedAt).toBeLessThan(8000)
    expectDiscreetFailure(storeHealth, config, /^bucket unreachable \(timed out\)$/)
    expectDiscreetFailure(sinkHealth, config, /^backup bucket unreachable \(timed out\)$/)
    client.destroy()
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => silent.close(resolve))
  }, 15_000)
})
