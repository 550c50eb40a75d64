import type { Selectable } from 'kysely'
import type { DispatchesTable } from '../db/schema.js'

/**
 * What became of one send. `refused`: the printer was not ready, nothing was sent.
 * `upload_failed`: the file did not arrive. `uploaded`: stored, not started (as asked, or
 * because the printer stopped being ready). `start_refused`: stored, the printer refused to
 * start. `not_confirmed`: stored and the start was accepted, but the printer never showed
 * that it prints (or it failed while preparing). `preparing`: started, and the printer still sets
 * the job up (a Bambu Lab printer unzips and checks it); later status reads settle it as
 * `confirmed` or `not_confirmed` (see `settlePreparing`). `confirmed`: printing (or its run
 * completed), seen with our own eyes.
 */
export type DispatchOutcome =
  | 'refused'
  | 'upload_failed'
  | 'uploaded'
  | 'not_ready_after_upload'
  | 'start_refused'
  | 'not_confirmed'
  | 'preparing'
  | 'confirmed'

export interface DispatchStep {
  step: 'check' | 'upload' | 'recheck' | 'start' | 'confirm'
  ok: boolean
  detail: string
  at: string
}

/** A dispatch as the API shows it: the row, with booleans, its outcome and its steps decoded. */
export type DispatchRecord = Omit<
  Selectable<DispatchesTable>,
  'outcome' | 'start_requested' | 'uploaded' | 'started' | 'confirmed' | 'steps'
> & {
  outcome: DispatchOutcome
  start_requested: boolean
  uploaded: boolean
  started: boolean
  confirmed: boolean
  steps: DispatchStep[]
  /** The model that holds the file now (files move between models and keep their history); null once the file is gone. */
  model_id: string | null
}

export const toDispatchRecord = (row: Selectable<DispatchesTable>, modelId: string | null): DispatchRecord => ({
  ...row,
  model_id: modelId,
  outcome: row.outcome as DispatchOutcome,
  start_requested: row.start_requested === 1,
  uploaded: row.uploaded === 1,
  started: row.started === 1,
  confirmed: row.confirmed === 1,
  steps: JSON.parse(row.steps) as DispatchStep[],
})
