import type { VaultEvent } from './read-events.js'
import type { EventSummary } from './summary.js'

const text = (value: unknown, fallback: string) => (typeof value === 'string' && value !== '' ? value : fallback)
const count = (value: unknown) => (typeof value === 'number' ? value : 0)
const copies = (n: number) => `${n} ${n === 1 ? 'copy' : 'copies'}`

/** A print job's event in words: the model, the printer it is on, how far it got and why it failed. */
export function summarizeJobEvent(event: Pick<VaultEvent, 'type' | 'data'>): EventSummary | null {
  const { data } = event
  const model = text(data.model_name, 'A print job')
  const on = typeof data.printer_name === 'string' ? ` on ${data.printer_name}` : ''
  const done = count(data.copies_done)
  const wanted = count(data.copies)
  const failure = text(data.last_error, 'no reason given')
  switch (event.type) {
    case 'job.queued':
      return {
        title: `${model}: queued`,
        message: `${model} is in the print queue: ${copies(wanted)}${done > 0 ? `, ${done} printed` : ''}.`,
        urgent: false,
        tags: ['inbox_tray'],
      }
    case 'job.started':
      return {
        title: `${model}: printing${on}`,
        message: `${model} is printing${on} (${done} of ${copies(wanted)} printed so far).`,
        urgent: false,
        tags: ['printer'],
      }
    case 'job.part_printed':
      return {
        title: `${model}: part printed${on}`,
        message: `A part of ${model} printed${on}; ${done} of ${copies(wanted)} done, the next waits in the queue.`,
        urgent: false,
        tags: ['heavy_check_mark'],
      }
    case 'job.completed':
      return {
        title: `${model}: printed`,
        message: `${model} printed: ${copies(wanted)}, the last${on}.`,
        urgent: false,
        tags: ['white_check_mark'],
      }
    case 'job.retrying':
      return {
        title: `${model}: failed, will try again`,
        message: `${model} failed${on} (${failure}); it waits in the queue to be tried again, and the printer is held until someone looks at it.`,
        urgent: true,
        tags: ['warning'],
      }
    case 'job.failed':
      return {
        title: `${model}: failed`,
        message: `${model} failed${on} and will not be tried again (${failure}).`,
        urgent: true,
        tags: ['x'],
      }
    case 'job.cancelled':
      return {
        title: `${model}: cancelled`,
        message: `${model} was cancelled with ${done} of ${copies(wanted)} printed.`,
        urgent: false,
        tags: ['no_entry_sign'],
      }
    case 'job.paused':
      return {
        title: `${model}: paused${on}`,
        message: `${model} is paused${on}.`,
        urgent: true,
        tags: ['pause_button'],
      }
    case 'job.resumed':
      return {
        title: `${model}: printing again${on}`,
        message: `${model} is printing again${on}.`,
        urgent: false,
        tags: ['arrow_forward'],
      }
    default:
      return null
  }
}
