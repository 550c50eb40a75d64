/**
 * Every kind of event the vault publishes, with what it means (the API's and the docs' wording).
 * A new kind is one line here; webhooks, the stream and the OpenAPI document take it from this list.
 */
export const eventTypeMeanings = {
  'printer.state_changed': "The vault saw a printer's state change (idle, printing, paused, error, offline…).",
  'printer.error': 'A printer entered the error state.',
  'printer.bed_needs_clearing': 'A printer that waits for its bed to be confirmed clear finished a job.',
  'printer.bed_cleared':
    "A printer's bed is clear again: someone confirmed it (`by: person`), or its clearing script ran and the printer showed itself idle after it (`by: script`).",
  'printer.bed_clearing':
    'A printer that clears its bed by script began a clearing run: `phase: cooling` (waiting for the bed to cool below `below_c`) or `phase: running` (the script was sent).',
  'printer.bed_clearing_failed':
    "A printer's clearing script failed, the printer erred, went offline or did not finish in time: the bed is not clear and the printer is held.",
  'dispatch.sent': 'A file was stored on a printer, not (yet) seen printing.',
  'dispatch.started': 'A sent file was seen printing.',
  'dispatch.failed': 'A send was refused or did not end printing.',
  'job.queued': 'A print job entered the queue: new, released from hold, or queued again by a person.',
  'job.started': "A print job's file was seen printing on the printer it was sent to.",
  'job.part_printed':
    "A file of a print job's set, or a whole copy, printed; the job waits in the queue for the next (`copies_done` counts whole sets).",
  'job.retrying': "A print job's send or print failed; it waits in the queue to be tried again.",
  'job.completed': 'A print job printed every copy of its set.',
  'job.failed': 'A print job failed as many times as it may, or could not be printed.',
  'job.cancelled': 'A print job was cancelled: from the queue, or its running print stopped from the vault.',
  'job.paused': "A print job's running print was paused from the vault, and the printer was seen paused.",
  'job.resumed': "A print job's paused print was resumed from the vault, and the printer was seen printing again.",
} as const

export type EventType = keyof typeof eventTypeMeanings

export const eventTypes = Object.keys(eventTypeMeanings) as [EventType, ...EventType[]]
