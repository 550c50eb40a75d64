import { api } from '../../api/client'
import { unwrap } from '../../api/problem'

/** Bytes received so far and the total (the `Content-Length`, else the size the file record states). */
export interface ByteProgress {
  received: number
  total: number
}

/**
 * Downloads a stored file's bytes, or its preview mesh's (`part: 'preview'`), through the API client
 * (so the bearer token and refresh apply), reporting progress as they arrive.
 */
export async function loadFileBytes(
  file: { id: string; size: number },
  onProgress: (progress: ByteProgress) => void,
  signal?: AbortSignal,
  part: 'content' | 'preview' = 'content',
): Promise<Uint8Array<ArrayBuffer>> {
  const request = { params: { path: { id: file.id } }, parseAs: 'stream', signal } as const
  const result = await (part === 'preview'
    ? api.GET('/api/v1/files/{id}/preview', request)
    : api.GET('/api/v1/files/{id}/content', request))
  const body = unwrap(result)
  const total = Number(result.response.headers.get('Content-Length')) || file.size
  if (!body) return new Uint8Array()
  const bytes = new Uint8Array(total)
  let received = 0
  let buffer = bytes
  const reader = body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (received + value.length > buffer.length) {
      const grown = new Uint8Array(Math.max(buffer.length * 2, received + value.length))
      grown.set(buffer.subarray(0, received))
      buffer = grown
    }
    buffer.set(value, received)
    received += value.length
    onProgress({ received, total: Math.max(total, received) })
  }
  // Exactly the bytes received, so `.buffer` is the file and nothing more.
  return received === buffer.length ? buffer : buffer.slice(0, received)
}
