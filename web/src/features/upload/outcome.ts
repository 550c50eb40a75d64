import { problemMessage } from '../../api/problem'
import type { IngestResult } from './send-upload'

/** What became of one uploaded file, for people. */
export type Outcome =
  | { kind: 'new-model' | 'joined-model' | 'duplicate'; modelId: string; modelName: string }
  | { kind: 'refused'; message: string }
  | { kind: 'cancelled' }

/** Reads the ingest answer: a duplicate, a file that made its model, or one that joined a model. */
export function outcomeOf(result: IngestResult): Outcome {
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
