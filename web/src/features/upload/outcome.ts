import { problemMessage } from '../../api/problem'
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

/** A failed upload: cancelled by the user, or refused with the vault's reason. */
export function failureOf(error: unknown): Outcome {
  if (error instanceof DOMException && error.name === 'AbortError') return { kind: 'cancelled' }
  return { kind: 'refused', message: problemMessage(error) }
}
