import type { BackupSink } from '../../core/backup/backup-sink.js'
import { fixedSizeParts } from '../web/fixed-size-parts.js'
import {
  createS3Fetch,
  describeS3Failure,
  type KeyedS3Config,
  type S3Request,
  xmlBlocks,
  xmlValue,
} from './s3-fetch.js'

/**
 * Multipart parts: S3 wants at least 5 MiB but the last; an upload holds one part in memory,
 * well inside a Worker's 128 MiB.
 */
const partBytes = 8 * 1024 * 1024
const probeTimeoutMs = 5000

/**
 * The backup bucket of the Workers build (`VAULT_BACKUP_S3_*`): any S3-compatible service, R2's
 * S3 API included, through `fetch` (s3-fetch.ts). With no disk to write to first, archives go
 * straight here, under `<prefix><file name>`: one PUT when the archive fits in one part, else a
 * multipart upload, so an archive appears only when complete. Failures name the S3 error code and
 * HTTP status only (`backup bucket: NoSuchBucket, HTTP 404`), as on Node.
 */
export function createFetchS3BackupSink(config: KeyedS3Config): BackupSink {
  const send = createS3Fetch(config)
  const { bucket, prefix } = config
  const request = async (req: S3Request, allowed: number[] = []): Promise<Response> => {
    let response: Response
    try {
      response = await send(req)
    } catch (error) {
      throw new Error(`backup bucket: ${error instanceof Error ? error.name : 'unknown error'}`, { cause: error })
    }
    if (!response.ok && !allowed.includes(response.status))
      throw new Error(`backup bucket: ${await describeS3Failure(response)}`)
    return response
  }
  return {
    kind: 's3',
    location: `s3://${bucket}/${prefix}`,
    async write(name, body) {
      const key = `${prefix}${name}`
      const parts = fixedSizeParts(body, partBytes)
      const first = await parts.next()
      const firstPart = first.done ? new Uint8Array(0) : first.value
      if (firstPart.byteLength < partBytes) {
        await request({ method: 'PUT', key, body: firstPart })
        return
      }
      const created = await (await request({ method: 'POST', key, query: { uploads: '' } })).text()
      const uploadId = xmlValue(created, 'UploadId')
      if (!uploadId) throw new Error('backup bucket: no UploadId in the answer to CreateMultipartUpload')
      try {
        const etags: string[] = []
        for (let part: Uint8Array<ArrayBuffer> | undefined = firstPart; part; ) {
          const query = { partNumber: String(etags.length + 1), uploadId }
          const uploaded = await request({ method: 'PUT', key, query, body: part })
          etags.push(uploaded.headers.get('etag') ?? '')
          const next = await parts.next()
          part = next.done ? undefined : next.value
        }
        const list = etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`)
        const xml = `<CompleteMultipartUpload>${list.join('')}</CompleteMultipartUpload>`
        const completed = await request({ method: 'POST', key, query: { uploadId }, body: utf8(xml) })
        // S3 can answer 200 and still fail the completion, with an <Error> body.
        const answer = await completed.text()
        if (answer.includes('<Error>'))
          throw new Error(`backup bucket: ${xmlValue(answer, 'Code')}, completing the upload`)
      } catch (error) {
        await parts.return(undefined)
        // Not every S3-compatible service implements the abort (s3rver does not): best effort.
        await send({ method: 'DELETE', key, query: { uploadId } }).catch(() => {})
        throw error
      }
    },
    async read(name) {
      const response = await request({ method: 'GET', key: `${prefix}${name}` }, [404])
      if (response.status === 404) {
        await response.body?.cancel()
        return null
      }
      return response.body
    },
    async list() {
      const archives = []
      let token: string | undefined
      do {
        const query: Record<string, string> = { 'list-type': '2', prefix }
        if (token) query['continuation-token'] = token
        const page = await (await request({ method: 'GET', query })).text()
        for (const object of xmlBlocks(page, 'Contents')) {
          const name = xmlValue(object, 'Key')?.slice(prefix.length)
          const modified = xmlValue(object, 'LastModified')
          if (name === undefined || name.includes('/') || !modified) continue
          archives.push({ name, size: Number(xmlValue(object, 'Size') ?? 0), modifiedAt: new Date(modified) })
        }
        token = xmlValue(page, 'IsTruncated') === 'true' ? xmlValue(page, 'NextContinuationToken') : undefined
      } while (token)
      return archives
    },
    async delete(name) {
      await request({ method: 'DELETE', key: `${prefix}${name}` }, [404])
    },
    async checkHealth() {
      const failure = await request({ method: 'HEAD', signal: AbortSignal.timeout(probeTimeoutMs) }).then(
        () => undefined,
        (error: Error) => error.message.replace(/^backup bucket: /, ''),
      )
      return failure
        ? { status: 'fail', reason: `backup bucket unreachable (${failure})`, details: { bucket_reachable: false } }
        : { status: 'pass', details: { bucket_reachable: true } }
    },
  }
}

const utf8 = (text: string) => new TextEncoder().encode(text)
