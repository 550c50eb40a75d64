import { problemMessage } from '../../api/problem'
import type { IngestResult } from './send-upload'

/** What became of one uploaded file, for people. */
export type Outcome =
  | { kind: 'new-model' | 'joined-model' | 'duplicate'; modelId: string; modelName: string }
  | { kind: 'refused'; message: string }
  | { kind: 'cancelled' }

/**
 * Reads the ingest answer. A new model is made in the same step as its first file and is
 * stamped with the same instant, so equal `created_at`s mean the upload made the model; an older
 * model is one the file joined.
 */
export function outcomeOf(result: IngestResult): Outcome {
  const model = { modelId: result.model.id, modelName: result.model.name }
  if (result.duplicate) return { kind: 'duplicate', ...model }
  if (result.model.created_at === result.file.created_at) return { kind: 'new-model', ...model }
  return { kind: 'joined-model', ...model }
}

/** A failed upload: cancelled by the user, or refused with the vault's reason. */
export function failureOf(error: unknown): Outcome {
  if (error instanceof DOMException && error.name === 'AbortError') return { kind: 'cancelled' }
  return { kind: 'refused', message: problemMessage(error) }
}
