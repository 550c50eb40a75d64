import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { ByteProgress } from './use-file-bytes'

/**
 * Downloads a model's package (its zip with `datapackage.json`) through the API client, so the
 * bearer token applies, reporting progress against the exact `Content-Length` the vault sends.
 * The chunks go into a Blob as they come, never copied into one buffer.
 */
export async function loadModelPackage(
  modelId: string,
  onProgress: (progress: ByteProgress) => void,
): Promise<{ zip: Blob; fileName: string }> {
  const result = await api.GET('/api/v1/models/{id}/package', {
    params: { path: { id: modelId } },
    parseAs: 'stream',
  })
  const body = unwrap(result)
  const headers = result.response.headers
  const total = Number(headers.get('Content-Length'))
  const fileName = /filename="([^"]+)"/.exec(headers.get('Content-Disposition') ?? '')?.[1] ?? 'model.zip'
  if (!body) throw new Error('The vault sent no package.')
  // Fetched bytes always sit in an ArrayBuffer; the stream's type leaves it open.
  const chunks: BlobPart[] = []
  let received = 0
  const reader = body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value as Uint8Array<ArrayBuffer>)
    received += value.length
    onProgress({ received, total: Math.max(total, received) })
  }
  if (received !== total) throw new Error(`The package was cut off after ${received} of ${total} bytes.`)
  return { zip: new Blob(chunks, { type: 'application/zip' }), fileName }
}
