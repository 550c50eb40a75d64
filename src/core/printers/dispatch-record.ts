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

/** The columns of a dispatch that tell of the print run it started: the API shows them as a print run (`print-runs.ts`). */
type RunColumns =
  | 'job_id'
  | 'run_state'
  | 'run_started_at'
  | 'run_ended_at'
  | 'run_reason'
  | 'filament_mm'
  | 'filament_g'
  | 'filament_source'
  | 'verdict'
  | 'note'
  | 'photo_sha256'
  | 'photo_type'
  | 'photo_size'

/** A dispatch as the API shows it: the send's columns, with booleans, its outcome and its steps decoded. */
export type DispatchRecord = Omit<
  Selectable<DispatchesTable>,
  'outcome' | 'start_requested' | 'uploaded' | 'started' | 'confirmed' | 'steps' | RunColumns
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
  id: row.id,
  printer_id: row.printer_id,
  printer_name: row.printer_name,
  file_id: row.file_id,
  file_name: row.file_name,
  user_id: row.user_id,
  remote_name: row.remote_name,
  detail: row.detail,
  created_at: row.created_at,
  finished_at: row.finished_at,
  model_id: modelId,
  outcome: row.outcome as DispatchOutcome,
  start_requested: row.start_requested === 1,
  uploaded: row.uploaded === 1,
  started: row.started === 1,
  confirmed: row.confirmed === 1,
  steps: JSON.parse(row.steps) as DispatchStep[],
})
