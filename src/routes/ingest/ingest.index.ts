import type { Context } from 'hono'
import { unprocessable, VaultError } from '../../core/errors.js'
import { assertModelExists, type IngestResult } from '../../core/ingest/ingest.js'
import { cleanFolder } from '../../core/library/folders.js'
import { type AppEnv, createRouter } from '../app-env.js'
import { presentFile, presentModel } from '../library-schemas.js'
import { editableModelFields } from '../models/models.routes.js'
import { validationFailure } from '../problem.js'
import { ingestReceivedArchive } from './archive-ingest.js'
import { ingestRawRoute, ingestRoute } from './ingest.routes.js'
import {
  keepUpload,
  type ReceivedUpload,
  receiveInTurn,
  receiveUploadForm,
  refuseDeclaredOversize,
  registerStored,
} from './multipart-ingest.js'

function answer(c: Context<AppEnv>, result: IngestResult) {
  const body = {
    kind: 'file' as const,
    duplicate: result.duplicate,
    model_created: result.modelCreated,
    file: presentFile(c, result.file),
    model: presentModel(c, result.model),
  }
  return result.duplicate ? c.json(body, 200) : c.json(body, 201)
}

const lengthRequired = () =>
  new VaultError('length_required', 'Send the file as the request body, with Content-Length.')

/** Where an upload goes: the file's name, the model named by id or a new model's name, and the folder in it. */
export interface UploadTarget {
  filename: string
  modelId: string | undefined
  modelName: string | undefined
  folder: string | undefined
}

/** Ingests a received upload: a zip's entries, or the file itself. */
async function ingestReceived(c: Context<AppEnv>, upload: ReceivedUpload, target: UploadTarget) {
  if (upload.kind === 'archive') return ingestReceivedArchive(c, upload.copy, target)
  return answer(c, await registerStored(c, upload.stored, target))
}

/** `model_name` trimmed and within the limits of a model's name; refused beside `model_id`. */
function modelNameOf(
  modelId: string | undefined,
  name: string | undefined,
  where: 'body' | 'query',
): string | undefined {
  if (name === undefined) return undefined
  const parsed = editableModelFields.name.safeParse(name)
  if (!parsed.success) throw validationFailure(parsed.error, `${where}.model_name`)
  if (modelId !== undefined)
    throw unprocessable('Send model_id to add the file to a model, or model_name to make a new one; not both.', [
      { path: `${where}.model_name`, message: 'cannot be sent with model_id' },
    ])
  return parsed.data
}

/** `folder` in the one form the vault keeps (see `cleanFolder`), or 422. */
function folderOf(raw: string | undefined, where: 'body' | 'query'): string | undefined {
  if (raw === undefined) return undefined
  const folder = cleanFolder(raw)
  if (folder === undefined)
    throw unprocessable(
      'folder must be a relative path inside the model: no `..`, no control characters, at most 32 folders and 1,024 characters.',
      [{ path: `${where}.folder`, message: 'is not a folder inside the model' }],
    )
  return folder
}

export const ingestRouter = createRouter()
  .openapi(ingestRoute, async (c) => {
    const { kept, filename, fields } = await receiveUploadForm(c, (bytes, name) => keepUpload(c, bytes, name))
    const modelId = fields.model_id || undefined
    let modelName: string | undefined
    let folder: string | undefined
    try {
      modelName = modelNameOf(modelId, fields.model_name, 'body')
      folder = folderOf(fields.folder, 'body')
    } catch (error) {
      // A zip waits on scratch disk: gone with the refusal. (Stored bytes no file names are swept by the blob collector.)
      if (kept.kind === 'archive') await kept.copy.dispose()
      throw error
    }
    return ingestReceived(c, kept, { filename, modelId, modelName, folder })
  })
  .openapi(ingestRawRoute, async (c) => {
    const { model_id: modelId, model_name: name, folder: rawFolder } = c.req.valid('query')
    const modelName = modelNameOf(modelId, name, 'query')
    const folder = folderOf(rawFolder, 'query')
    const { filename } = c.req.valid('param')
    // What the headers and the query already refuse is refused without waiting for a turn.
    if (c.req.header('content-length') === undefined && c.req.header('transfer-encoding') === undefined)
      throw lengthRequired()
    refuseDeclaredOversize(c, 0)
    if (modelId) await assertModelExists(c.var.deps, modelId)
    const upload = await receiveInTurn(c, async () => {
      const body = c.req.raw.body
      if (!body) throw lengthRequired()
      return keepUpload(c, body, filename)
    })
    return ingestReceived(c, upload, { filename, modelId, modelName, folder })
  })
