import { mkdtemp, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CreateBucketCommand, paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3'
import { createS3Client } from '../../src/adapters/s3/s3-client.js'
import type { S3Config } from '../../src/core/config/config.js'

interface S3rverOptions {
  address: string
  port: number
  silent: boolean
  directory: string
}
interface S3rver {
  run(): Promise<AddressInfo>
  close(): Promise<void>
  store: Record<string, (...args: unknown[]) => Promise<unknown>>
}
// s3rver is CommonJS and ships no type declarations.
const S3rver = createRequire(import.meta.url)('s3rver') as new (options: S3rverOptions) => S3rver

export interface S3TestServer {
  /** `http://127.0.0.1:<port>` */
  endpoint: string
  /** s3rver checks signatures against these fixed credentials. */
  accessKeyId: string
  secretAccessKey: string
  /** Path-style configuration for a bucket on this server. */
  configFor(bucket: string): S3Config
  /** Creates an empty bucket with a random name and returns the name. */
  createBucket(): Promise<string>
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>
}

/** Starts s3rver on a free loopback port, storing its data in a fresh temporary directory. */
export async function startS3Server(): Promise<S3TestServer> {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'))
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory })
  writeEachKeyAtomically(server)
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }
  const configFor = (bucket: string): S3Config => ({
    endpoint,
    region: 'us-east-1',
    bucket,
    prefix: '',
    credentials,
    forcePathStyle: true,
  })
  const client = createS3Client(configFor(''))
  return {
    endpoint,
    ...credentials,
    configFor,
    async createBucket() {
      const bucket = `test-${crypto.randomUUID()}`
      await client.send(new CreateBucketCommand({ Bucket: bucket }))
      return bucket
    },
    async stop() {
      client.destroy()
      await server.close()
      await rm(directory, { recursive: true, force: true })
    },
  }
}

/**
 * s3rver keeps objects as files in folders named after their keys, and S3 has no folders. Two
 * writes of one key at once (replicas storing the same blob, each copying its staging object to
 * the content key) can fail with InternalError, where S3 replaces an object atomically; and a
 * delete removes the folders it leaves empty, so a write into one of them meanwhile (an upload's
 * staging object while another's is deleted) fails to open its file, an error s3rver leaves
 * unhandled. Writes (put, copy onto, delete) of keys under one top folder take turns here, which
 * makes the fake behave as S3 does.
 */
function writeEachKeyAtomically(server: S3rver): void {
  const turns = new Map<string, Promise<unknown>>()
  const inTurns = (method: string, keyOf: (args: unknown[]) => [bucket: string, key: string]) => {
    const original = server.store[method]?.bind(server.store) as (...args: unknown[]) => Promise<unknown>
    server.store[method] = (...args: unknown[]) => {
      const [bucket, key] = keyOf(args)
      // The folder a delete prunes up to: the key's first segment (the whole key when it has none).
      const tree = `${bucket}/${key.split('/')[0]}`
      const run = (turns.get(tree) ?? Promise.resolve()).then(
        () => original(...args),
        () => original(...args),
      )
      turns.set(tree, run)
      return run
    }
  }
  inTurns('putObject', ([object]) => {
    const { bucket, key } = object as { bucket: string; key: string }
    return [bucket, key]
  })
  inTurns('copyObject', (args) => [String(args[2]), String(args[3])])
  inTurns('deleteObject', (args) => [String(args[0]), String(args[1])])
}

/** Every object key under `prefix`, whatever it is: blobs, staging leftovers, strays. */
export async function listObjectKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = []
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key)
  }
  return keys
}
