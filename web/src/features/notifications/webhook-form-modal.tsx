import { Alert, Button, Checkbox, Group, Modal, Radio, Stack, Switch, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { fieldErrors, problemMessage } from '../../api/problem'
import { eventTypeLabels, eventTypes, formatChoices } from './event-types'
import type { EventType, Webhook, WebhookFormat, WebhookInput } from './types'

interface WebhookFormModalProps {
  /** The webhook being edited; none when adding one. */
  webhook?: Webhook
  onSubmit: (values: WebhookInput) => Promise<unknown>
  onClose: () => void
  error: unknown
  pending: boolean
}

/**
 * Adds or edits a webhook: its name, URL, format, the events to send and whether it is on. A
 * field the vault refuses (a URL that is not http(s), say) shows the vault's reason under it.
 */
export function WebhookFormModal({ webhook, onSubmit, onClose, error, pending }: WebhookFormModalProps) {
  const [name, setName] = useState(webhook?.name ?? '')
  const [url, setUrl] = useState(webhook?.url ?? '')
  const [format, setFormat] = useState<WebhookFormat>(webhook?.format ?? 'generic')
  const [chosenTypes, setChosenTypes] = useState<string[]>(
    webhook?.event_types ?? ['printer.error', 'printer.bed_needs_clearing', 'dispatch.failed'],
  )
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true)
  const fields = fieldErrors(error)
  const fieldMessages = Object.keys(fields).length > 0

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    try {
      // The choices are the API's own event types.
      await onSubmit({ name, url, format, event_types: chosenTypes as EventType[], enabled })
    } catch {
      // The error is shown in the form.
    }
  }

  return (
    <Modal
      opened
      onClose={onClose}
      title={webhook ? `Edit “${webhook.name}”` : 'Add a webhook'}
      closeButtonProps={{ 'aria-label': 'Close dialog' }}
    >
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fields.name}
            data-autofocus
          />
          <Radio.Group
            label="Format"
            value={format}
            onChange={(value) => setFormat(value as WebhookFormat)}
            error={fields.format}
          >
            <Stack gap="xs" mt={4}>
              {formatChoices.map((choice) => (
                <Radio key={choice.value} value={choice.value} label={choice.label} description={choice.hint} />
              ))}
            </Stack>
          </Radio.Group>
          <TextInput
            label="URL"
            required
            description="Where deliveries are POSTed: http:// or https://, without a user name or password."
            value={url}
            onChange={(event) => setUrl(event.currentTarget.value)}
            error={fields.url}
          />
          <Checkbox.Group
            label="Events to send"
            value={chosenTypes}
            onChange={setChosenTypes}
            error={fields.event_types}
          >
            <Stack gap={6} mt={4}>
              {eventTypes.map((type) => (
                <Checkbox key={type} value={type} label={eventTypeLabels[type]} />
              ))}
            </Stack>
          </Checkbox.Group>
          <Switch
            label="Enabled"
            description="A disabled webhook is sent nothing (a test still goes out)."
            checked={enabled}
            onChange={(event) => setEnabled(event.currentTarget.checked)}
          />
          {error !== null && error !== undefined && !fieldMessages && (
            <Alert color="red" role="alert">
              {problemMessage(error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              {webhook ? 'Save' : 'Add webhook'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
