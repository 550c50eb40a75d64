import { apiBaseUrl } from '../../api/base-url'
import { unwrap } from '../../api/problem'
import type { paths } from '../../api/schema'
import { getAccessToken, refreshSession } from '../../api/session'

type IngestAnswers = paths['/api/v1/ingest']['post']['responses']
/** The multipart fields of an upload as the API documents them (`file` is binary: a Blob, so a File). */
type IngestForm = paths['/api/v1/ingest']['post']['requestBody']['content']['multipart/form-data']
/** What the vault answers an upload with (200 duplicate, 201 stored). */
export type IngestResult = IngestAnswers[201]['content']['application/json']

/** The ingest path, typed against the generated paths so a renamed route breaks the build. */
const ingestPath = '/api/v1/ingest' satisfies keyof paths

/**
 * Where a file goes: into a model (`modelId`), into a new model of this name (`modelName`), or its
 * own way; `folder` is the folder inside the model it goes to (the top when missing).
 */
export interface UploadTarget {
  modelId?: string
  modelName?: string
  folder?: string
}

export interface UploadHandlers {
  onProgress: (sentBytes: number) => void
  /** Every byte is sent; the vault is reading the file and has not answered yet. */
  onSent: () => void
  signal: AbortSignal
}

/**
 * Sends one file to `POST /api/v1/ingest` as multipart field `file`, with `model_id` or
 * `model_name` and `folder` when `target` names where it goes. XMLHttpRequest, not the
 * openapi-fetch client, because only XHR reports upload progress. Carries the session's bearer
 * token; a 401 refreshes the session once and sends again, as the client's middleware does.
 * Rejects with an `ApiError` (from the shared `unwrap`) for a refusal, a `TypeError` when the vault cannot be reached, and
 * a `DOMException` named `AbortError` when `signal` aborts.
 */
export async function sendUpload(
  file: File,
  handlers: UploadHandlers,
  target: UploadTarget = {},
): Promise<IngestResult> {
  const first = await sendOnce(file, handlers, target)
  if (first.status !== 401 || !(await refreshSession())) return settle(first)
  return settle(await sendOnce(file, handlers, target))
}

interface RawAnswer {
  status: number
  body: unknown
}

/** Reads the answer as the client reads its own: the result, or an `ApiError` with the problem. */
const settle = (answer: RawAnswer): IngestResult =>
  unwrap({
    data: answer.body as IngestResult,
    error: answer.body,
    response: new Response(null, { status: answer.status }),
  })

function sendOnce(
  file: File,
  { onProgress, onSent, signal }: UploadHandlers,
  target: UploadTarget,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const abort = () => xhr.abort()
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `${apiBaseUrl}${ingestPath}`)
    xhr.responseType = 'json'
    const token = getAccessToken()
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`)
    // The body is the multipart envelope around the file: scale its progress to the file's bytes.
    xhr.upload.onprogress = (event) =>
      onProgress(
        event.lengthComputable
          ? Math.round((file.size * event.loaded) / event.total)
          : Math.min(event.loaded, file.size),
      )
    xhr.upload.onload = onSent
    xhr.onload = () => {
      signal.removeEventListener('abort', abort)
      resolve({ status: xhr.status, body: xhr.response })
    }
    xhr.onerror = () => {
      signal.removeEventListener('abort', abort)
      reject(new TypeError('network failure'))
    }
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'))
    if (signal.aborted) return reject(new DOMException('The upload was cancelled.', 'AbortError'))
    signal.addEventListener('abort', abort, { once: true })
    const fields: IngestForm = { file, model_id: target.modelId, model_name: target.modelName, folder: target.folder }
    const form = new FormData()
    // The model's fields before the file: the vault reads them as they come.
    if (fields.model_id) form.append('model_id', fields.model_id)
    if (fields.model_name) form.append('model_name', fields.model_name)
    if (fields.folder) form.append('folder', fields.folder)
    form.append('file', fields.file, file.name)
    xhr.send(form)
  })
}
