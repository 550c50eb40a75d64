import { openAsBlob } from 'node:fs'
import { type components, createVaultClient } from '../client/index.js'
import type { FoundFile } from './import-tree.js'
import { detailOf, type HookConfig } from './vault-client-config.js'

/** The vault refused a request for a reason of its own (bad file, too large): retrying will not help. */
export class RequestRefused extends Error {}

/** The key is wrong or lacks a scope: every further request would fail the same way, so the import stops. */
export class AccessRefused extends Error {}

/** The vault could not be reached or kept failing after every retry. */
export class VaultUnavailable extends Error {}

/** A single file's answer (the import sends no zips). */
export type UploadAnswer = components['schemas']['IngestResult']

/** Where an upload goes: into the model of this id, or into a new model of this name. */
export type UploadTarget = { modelId: string } | { modelName: string }

/** How often, and after how long, a request the network or a busy vault failed is tried again. */
export interface RetryPolicy {
  attempts: number
  firstDelayMs: number
}

/** What one call of the typed client answers: its data, or the problem and the HTTP answer. */
type Answer<T> = { data?: T; error?: unknown; response: Response }

const problemOf = (error: unknown): { code?: string; detail?: string } =>
  typeof error === 'object' && error !== null ? (error as { code?: string; detail?: string }) : {}

/**
 * The calls `model-vault import` makes, through the package's typed client (`model-vault/client`)
 * with its API key. Network errors, 5xx, 429 and 409 `content_deleted` (the bytes vanished while
 * stored) are retried with doubling delays, each attempt a new request (an upload's body read
 * from disk again, never buffered); 401 and 403 throw AccessRefused, any other 4xx RequestRefused.
 */
export function createImportVaultApi(config: HookConfig, retry: RetryPolicy) {
  const vault = createVaultClient({ baseUrl: config.url, token: config.key })
  const options = () => ({ signal: AbortSignal.timeout(config.timeoutSeconds * 1000) })
  const request = async <T>(call: () => Promise<Answer<T>>): Promise<T> => {
    let failure = ''
    for (let attempt = 0; attempt < retry.attempts; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, retry.firstDelayMs * 2 ** (attempt - 1)))
      let answer: Answer<T>
      try {
        answer = await call()
      } catch (error) {
        failure = networkReason(error)
        continue
      }
      const { response } = answer
      if (response.ok) return answer.data as T
      const problem = problemOf(answer.error)
      failure = `HTTP ${response.status}: ${problem.detail ?? detailOf(String(answer.error ?? ''))}`
      if (response.status === 401 || response.status === 403) throw new AccessRefused(failure)
      if (response.status < 500 && response.status !== 429 && problem.code !== 'content_deleted')
        throw new RequestRefused(failure)
    }
    throw new VaultUnavailable(`${failure} (tried ${retry.attempts} times)`)
  }
  const collectionIds = new Map<string, Promise<string>>()
  /** One look-up or creation per name and run, however many models ask at once. */
  const collectionNamed = (name: string): Promise<string> => {
    const key = name.toLowerCase()
    const known = collectionIds.get(key)
    if (known) return known
    const found = findOrCreateCollection(name)
    collectionIds.set(key, found)
    found.catch(() => collectionIds.delete(key))
    return found
  }
  const listCollections = () => request(() => vault.GET('/api/v1/collections', options()))
  const findCollection = async (name: string) =>
    (await listCollections()).items.find((collection) => collection.name.toLowerCase() === name.toLowerCase())?.id
  async function findOrCreateCollection(name: string): Promise<string> {
    const existing = await findCollection(name)
    if (existing) return existing
    try {
      return (await request(() => vault.POST('/api/v1/collections', { body: { name }, ...options() }))).id
    } catch (error) {
      // Made by someone else since the look-up (409 collection_name_taken): use theirs.
      const made = error instanceof RequestRefused ? await findCollection(name) : undefined
      if (made) return made
      throw error
    }
  }
  return {
    /** Checks the URL and the key before anything is sent (GET /collections needs the `read` scope the import needs). */
    check: listCollections,
    /**
     * PUT /ingest/{filename}: the file (`bytes` when already read, else streamed from disk), with
     * its Content-Length, into `target` (else the model the vault chooses), in `folder` of it.
     */
    upload: (file: FoundFile, bytes: Blob | undefined, target: UploadTarget | undefined, folder: string) =>
      request(async () =>
        vault.PUT('/api/v1/ingest/{filename}', {
          params: {
            path: { filename: file.path.slice(file.path.lastIndexOf('/') + 1) },
            query: {
              ...(target && 'modelId' in target ? { model_id: target.modelId } : {}),
              ...(target && 'modelName' in target ? { model_name: target.modelName } : {}),
              ...(folder ? { folder } : {}),
            },
          },
          body: bytes ?? (await openAsBlob(file.absolutePath)),
          bodySerializer: (blob) => blob,
          headers: { 'Content-Type': 'application/octet-stream' },
          ...options(),
        }),
      ) as Promise<UploadAnswer>,
    model: (id: string) => request(() => vault.GET('/api/v1/models/{id}', { params: { path: { id } }, ...options() })),
    /** The ids of the models named exactly `name` (among the first hundred its words find). */
    modelsNamed: async (name: string) =>
      (
        await request(() => vault.GET('/api/v1/models', { params: { query: { limit: 100, q: name } }, ...options() }))
      ).items
        .filter((model) => model.name === name)
        .map((model) => model.id),
    updateModel: (id: string, change: { name?: string; tags?: string[] }) =>
      request(() => vault.PATCH('/api/v1/models/{id}', { params: { path: { id } }, body: change, ...options() })),
    addToCollection: async (name: string, modelId: string) => {
      const id = await collectionNamed(name)
      await request(() =>
        vault.PUT('/api/v1/collections/{id}/models/{model_id}', {
          params: { path: { id, model_id: modelId } },
          ...options(),
        }),
      )
    },
  }
}

export type ImportVaultApi = ReturnType<typeof createImportVaultApi>

/** "connect ECONNREFUSED 127.0.0.1:9" rather than fetch's bare "fetch failed". */
const networkReason = (error: unknown) =>
  error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)
