import type { EventType, WebhookFormat } from './types'

/**
 * The events a webhook can be sent, in the API's order, with their labels. Typed by the API's
 * own list: an event type the vault adds fails the type check here until it has a label.
 */
export const eventTypeLabels: Record<EventType, string> = {
  'printer.state_changed': 'A printer changed state',
  'printer.error': 'A printer reported an error',
  'printer.bed_needs_clearing': 'A bed needs clearing after a job',
  'printer.bed_cleared': 'A bed was cleared (confirmed by a person, or by its clearing script)',
  'printer.bed_clearing': 'A printer began clearing its bed by script',
  'printer.bed_clearing_failed': 'A clearing script failed and the printer is held',
  'dispatch.sent': 'A file was stored on a printer',
  'dispatch.started': 'A sent file started printing',
  'dispatch.failed': 'A send failed',
  'job.queued': 'A print job entered the queue',
  'job.started': 'A print job started printing',
  'job.part_printed': 'A part or copy of a print job printed; the next waits in the queue',
  'job.retrying': 'A print job failed and waits to be tried again',
  'job.completed': 'A print job printed every copy',
  'job.failed': 'A print job failed for good',
  'job.cancelled': 'A print job was cancelled',
  'job.paused': "A print job's print was paused",
  'job.resumed': "A print job's print was resumed",
}

export const eventTypes = Object.keys(eventTypeLabels) as EventType[]

/** The formats with what each one is for. */
export const formatChoices: { value: WebhookFormat; label: string; hint: string }[] = [
  { value: 'generic', label: 'Generic', hint: 'Signed JSON for your own script or service.' },
  { value: 'ntfy', label: 'ntfy', hint: 'A push notification to an ntfy topic URL (https://ntfy.sh/<topic>).' },
  { value: 'discord', label: 'Discord', hint: "A message to a Discord channel's webhook URL." },
]

export const formatLabel = (format: WebhookFormat) =>
  formatChoices.find((choice) => choice.value === format)?.label ?? format
