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

/** Every object key under `prefix`, whatever it is: blobs, staging leftovers, strays. */
export async function listObjectKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = []
  for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key)
  }
  return keys
}
