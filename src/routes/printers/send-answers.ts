import { type ErrorCode, errorCatalogue } from '../../core/errors.js'
import type { DispatchOutcome } from '../../core/printers/dispatch-record.js'

/**
 * How each way a send can end is answered over HTTP: the dispatch with 201 (done as asked) or 202
 * (started, the printer still prepares it), or, for a send the printer let down, the status of the
 * catalogue's entry for its outcome (a refused send is thrown before it gets here).
 */
const sendAnswers = {
  confirmed: 201,
  uploaded: 201,
  preparing: 202,
  refused: 'printer_not_ready',
  not_ready_after_upload: 'not_ready_after_upload',
  upload_failed: 'upload_failed',
  start_refused: 'start_refused',
  not_confirmed: 'not_confirmed',
} as const satisfies Record<DispatchOutcome, 201 | 202 | ErrorCode>

/** The 201 or 202 of a send that started (or stored, as asked), else the error code of how it failed. */
export const sendAnswer = (outcome: DispatchOutcome) => sendAnswers[outcome]

/** The HTTP status of a send's dispatch record. */
export function sendStatus(outcome: DispatchOutcome) {
  const answer = sendAnswer(outcome)
  return typeof answer === 'number' ? answer : errorCatalogue[answer].status
}
