import { openAsBlob } from 'node:fs'
import type { FoundFile } from './import-tree.js'
import { detailOf, type HookConfig } from './vault-client-config.js'

/** The vault refused a request for a reason of its own (bad file, too large): retrying will not help. */
export class RequestRefused extends Error {}

/** The key is wrong or lacks a scope: every further request would fail the same way, so the import stops. */
export class AccessRefused extends Error {}

/** The vault could not be reached or kept failing after every retry. */
export class VaultUnavailable extends Error {}

export interface UploadAnswer {
  duplicate: boolean
  model_created: boolean
  file: { id: string; name: string }
  model: { id: string; name: string }
}

export interface ModelDetail {
  id: string
  name: string
  tags: string[]
  collections: { id: string; name: string }[]
  files: { name: string; folder: string; sha256: string }[]
}

/** Where an upload goes: into the model of this id, or into a new model of this name. */
export type UploadTarget = { modelId: string } | { modelName: string }

interface Collection {
  id: string
  name: string
}

/** How often, and after how long, a request the network or a busy vault failed is tried again. */
export interface RetryPolicy {
  attempts: number
  firstDelayMs: number
}

/**
 * The calls `model-vault import` makes, over the vault's public API with its API key. Network
 * errors, 5xx, 429 and 409 (`content_deleted`: the bytes vanished while stored) are retried with
 * doubling delays; 401 and 403 throw AccessRefused, any other 4xx RequestRefused.
 */
export function createImportVaultApi(config: HookConfig, retry: RetryPolicy) {
  const request = async <T>(method: string, path: string, body?: () => Promise<Blob | string>): Promise<T> => {
    let failure = ''
    for (let attempt = 0; attempt < retry.attempts; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, retry.firstDelayMs * 2 ** (attempt - 1)))
      let response: Response
      try {
        const payload = await body?.()
        response = await fetch(`${config.url}${path}`, {
          method,
          headers: {
            'X-Api-Key': config.key,
            ...(typeof payload === 'string' ? { 'Content-Type': 'application/json' } : {}),
          },
          body: payload,
          signal: AbortSignal.timeout(config.timeoutSeconds * 1000),
        })
      } catch (error) {
        failure = networkReason(error)
        continue
      }
      const text = await response.text()
      if (response.ok) return (text ? JSON.parse(text) : undefined) as T
      failure = `HTTP ${response.status}: ${detailOf(text)}`
      if (response.status === 401 || response.status === 403) throw new AccessRefused(failure)
      if (response.status < 500 && response.status !== 429 && !/"code":"content_deleted"/.test(text))
        throw new RequestRefused(failure)
    }
    throw new VaultUnavailable(`${failure} (tried ${retry.attempts} times)`)
  }
  const json = (value: unknown) => async () => JSON.stringify(value)
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
  const findCollection = async (name: string) =>
    (await request<{ items: Collection[] }>('GET', '/api/v1/collections')).items.find(
      (collection) => collection.name.toLowerCase() === name.toLowerCase(),
    )?.id
  async function findOrCreateCollection(name: string): Promise<string> {
    const existing = await findCollection(name)
    if (existing) return existing
    try {
      return (await request<Collection>('POST', '/api/v1/collections', json({ name }))).id
    } catch (error) {
      // Made by someone else since the look-up (409 collection_name_taken): use theirs.
      const made = error instanceof RequestRefused ? await findCollection(name) : undefined
      if (made) return made
      throw error
    }
  }
  return {
    /** Checks the URL and the key before anything is sent (GET /collections needs the `read` scope the import needs). */
    check: () => request<{ items: Collection[] }>('GET', '/api/v1/collections'),
    /**
     * PUT /ingest/{name}: the file streamed from disk, with its Content-Length, into `target` (else
     * the model the vault chooses), in `folder` of it.
     */
    upload: (file: FoundFile, target: UploadTarget | undefined, folder: string) => {
      const query = new URLSearchParams({
        ...(target && 'modelId' in target ? { model_id: target.modelId } : {}),
        ...(target && 'modelName' in target ? { model_name: target.modelName } : {}),
        ...(folder ? { folder } : {}),
      })
      return request<UploadAnswer>(
        'PUT',
        `/api/v1/ingest/${encodeURIComponent(file.path.slice(file.path.lastIndexOf('/') + 1))}${query.size ? `?${query}` : ''}`,
        () => openAsBlob(file.absolutePath),
      )
    },
    model: (id: string) => request<ModelDetail>('GET', `/api/v1/models/${id}`),
    /** The ids of the models named exactly `name` (among the first hundred its words find). */
    modelsNamed: async (name: string) =>
      (
        await request<{ items: { id: string; name: string }[] }>(
          'GET',
          `/api/v1/models?limit=100&q=${encodeURIComponent(name)}`,
        )
      ).items
        .filter((model) => model.name === name)
        .map((model) => model.id),
    updateModel: (id: string, change: { name?: string; tags?: string[] }) =>
      request<ModelDetail>('PATCH', `/api/v1/models/${id}`, json(change)),
    addToCollection: async (name: string, modelId: string) =>
      request<void>('PUT', `/api/v1/collections/${await collectionNamed(name)}/models/${modelId}`),
  }
}

export type ImportVaultApi = ReturnType<typeof createImportVaultApi>

/** "connect ECONNREFUSED 127.0.0.1:9" rather than fetch's bare "fetch failed". */
const networkReason = (error: unknown) =>
  error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)
