import { ApiError, problemMessage } from '../../api/problem'
import type { IngestResult } from './send-upload'

/** A model an unpacked zip made or added to. */
export interface ArchiveModel {
  modelId: string
  modelName: string
  created: boolean
}

/** What became of one uploaded file, for people. */
export type Outcome =
  | { kind: 'new-model' | 'joined-model' | 'duplicate'; modelId: string; modelName: string }
  | {
      kind: 'archive'
      models: ArchiveModel[]
      stored: number
      duplicates: number
      skipped: { path: string; reason: string }[]
    }
  | { kind: 'refused'; message: string }
  | { kind: 'failed'; message: string }
  | { kind: 'cancelled' }

/**
 * Reads the ingest answer: a duplicate, a file that made its model, one that joined a model,
 * or an unpacked zip with its models, counts and the reasons of what it skipped.
 */
export function outcomeOf(result: IngestResult): Outcome {
  if (result.kind === 'archive') {
    return {
      kind: 'archive',
      models: result.models.map(({ model, model_created }) => ({
        modelId: model.id,
        modelName: model.name,
        created: model_created,
      })),
      stored: result.stored,
      duplicates: result.duplicates,
      skipped: result.entries.flatMap(({ path, reason }) => (reason === null ? [] : [{ path, reason }])),
    }
  }
  const model = { modelId: result.model.id, modelName: result.model.name }
  if (result.duplicate) return { kind: 'duplicate', ...model }
  if (result.model_created) return { kind: 'new-model', ...model }
  return { kind: 'joined-model', ...model }
}

/**
 * An upload that ended without a file stored: cancelled by the user; refused, the vault saying why
 * (a 4xx problem: too large, not allowed, a bad zip); or failed, through no fault of the file (the
 * connection broke, the vault answered 5xx): worth trying again.
 */
export function failureOf(error: unknown): Outcome {
  if (error instanceof DOMException && error.name === 'AbortError') return { kind: 'cancelled' }
  if (error instanceof ApiError && error.status < 500) return { kind: 'refused', message: problemMessage(error) }
  if (error instanceof TypeError) return { kind: 'failed', message: 'The connection to the vault broke.' }
  return { kind: 'failed', message: problemMessage(error) }
}
