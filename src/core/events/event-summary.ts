import { summarizeJobEvent } from './job-event-summary.js'
import type { VaultEvent } from './read-events.js'
import type { EventSummary } from './summary.js'

const text = (value: unknown, fallback: string) => (typeof value === 'string' && value !== '' ? value : fallback)

/** Says what happened, from the event's data; an unknown type is named as it is. */
export function summarizeEvent(event: Pick<VaultEvent, 'type' | 'subject' | 'data'>): EventSummary {
  const { data } = event
  const printer = text(data.printer_name, 'A printer')
  const file = text(data.file_name, 'a file')
  const reason = typeof data.reason === 'string' && data.reason ? ` (${data.reason})` : ''
  switch (event.type) {
    case 'printer.state_changed':
      return {
        title: `${printer}: ${text(data.state, 'unknown')}`,
        message: `${printer} is now ${text(data.state, 'unknown')}${reason}; it was ${text(data.previous_state, 'not seen before')}.`,
        urgent: false,
        tags: ['printer'],
      }
    case 'printer.error':
      return {
        title: `${printer}: error`,
        message: `${printer} reports an error${reason}.`,
        urgent: true,
        tags: ['warning'],
      }
    case 'printer.bed_needs_clearing':
      return {
        title: `${printer}: clear the bed`,
        message: `${printer} finished a job; take the print off and confirm the bed is clear to send the next one.`,
        urgent: true,
        tags: ['broom'],
      }
    case 'printer.bed_cleared':
      return {
        title: `${printer}: bed clear`,
        message:
          data.by === 'script'
            ? `${printer}'s clearing script ran and the printer is idle: the bed is clear.`
            : `${printer}'s bed was confirmed clear.`,
        urgent: false,
        tags: ['white_check_mark'],
      }
    case 'printer.bed_clearing':
      return {
        title: `${printer}: clearing the bed`,
        message:
          data.phase === 'cooling'
            ? `${printer} waits for its bed to cool below ${typeof data.below_c === 'number' ? data.below_c : '?'} °C, then runs its clearing script.`
            : `${printer} runs its clearing script.`,
        urgent: false,
        tags: ['broom'],
      }
    case 'printer.bed_clearing_failed':
      return {
        title: `${printer}: bed not cleared`,
        message: `${printer} could not clear its bed by script${reason}; it is held until someone looks at it.`,
        urgent: true,
        tags: ['warning'],
      }
    case 'dispatch.sent':
      return {
        title: `${printer}: ${file} sent`,
        message: text(data.detail, `${file} was sent.`),
        urgent: false,
        tags: ['outbox_tray'],
      }
    case 'dispatch.started':
      return {
        title: `${printer}: printing ${file}`,
        message: text(data.detail, `Printing ${file}.`),
        urgent: false,
        tags: ['printer'],
      }
    case 'dispatch.failed':
      return {
        title: `${printer}: ${file} not printing`,
        message: text(data.detail, 'The send failed.'),
        urgent: true,
        tags: ['x'],
      }
    case 'webhook.test':
      return {
        title: 'model-vault test',
        message: 'This webhook works: the vault reached it.',
        urgent: false,
        tags: ['wave'],
      }
    default:
      return (
        summarizeJobEvent(event) ?? {
          title: event.type,
          message: `${event.type} on ${event.subject}`,
          urgent: false,
          tags: [],
        }
      )
  }
}
