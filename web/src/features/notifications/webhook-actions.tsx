import { Button, Group } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconList, IconPencil, IconSend, IconTrash } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { ConfirmModal } from '../../ui/confirm-modal'
import type { Webhook, WebhookDelivery } from './types'
import { useDeleteWebhook, useTestWebhook } from './use-webhooks'

/** What a webhook's test send came to: delivered with the receiver's answer, or why not. */
function testOutcome(name: string, delivery: WebhookDelivery): string {
  const answer = delivery.response_code === null ? '' : ` The receiver answered ${delivery.response_code}.`
  if (delivery.status === 'delivered') return `Test to “${name}”: delivered.${answer}`
  return delivery.error
    ? `Test to “${name}”: not delivered (${delivery.error}).`
    : `Test to “${name}”: not delivered.${answer}`
}

/** A webhook's buttons: send a test (its outcome as a notification), the delivery log, edit, and delete behind a confirmation. */
export function WebhookActions({
  webhook,
  onEdit,
  onShowLog,
}: {
  webhook: Webhook
  onEdit: () => void
  onShowLog: () => void
}) {
  const test = useTestWebhook(webhook.id)
  const remove = useDeleteWebhook(webhook.id)
  const [confirming, setConfirming] = useState(false)
  const sendTest = () =>
    test.mutate(undefined, {
      onSuccess: (delivery) =>
        notifications.show({
          color: delivery.status === 'delivered' ? 'green' : 'red',
          // Without a title: Mantine draws the message under a title in a grey too faint to read well.
          message: testOutcome(webhook.name, delivery),
          closeButtonProps: { 'aria-label': 'Dismiss' },
        }),
      onError: (error) => notifications.show({ color: 'red', title: 'Test not sent', message: problemMessage(error) }),
    })
  return (
    <Group gap="xs" wrap="wrap" justify="flex-end">
      <Button
        size="xs"
        variant="default"
        leftSection={<IconSend size={14} aria-hidden />}
        aria-label={`Send test to ${webhook.name}`}
        loading={test.isPending}
        onClick={sendTest}
      >
        Send test
      </Button>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconList size={14} aria-hidden />}
        aria-label={`Deliveries to ${webhook.name}`}
        onClick={onShowLog}
      >
        Deliveries
      </Button>
      <Button
        size="xs"
        variant="default"
        leftSection={<IconPencil size={14} aria-hidden />}
        aria-label={`Edit ${webhook.name}`}
        onClick={onEdit}
      >
        Edit
      </Button>
      <Button
        size="xs"
        variant="default"
        color="red"
        leftSection={<IconTrash size={14} aria-hidden />}
        aria-label={`Delete ${webhook.name}`}
        onClick={() => setConfirming(true)}
      >
        Delete
      </Button>
      <ConfirmModal
        opened={confirming}
        title={`Delete “${webhook.name}”?`}
        confirmLabel="Delete webhook"
        cancelLabel="Keep it"
        error={remove.error}
        pending={remove.isPending}
        onConfirm={() => remove.mutate(undefined, { onSuccess: () => setConfirming(false) })}
        onClose={() => {
          setConfirming(false)
          remove.reset()
        }}
      >
        Nothing more is sent to {webhook.url}, and its delivery log goes with it.
      </ConfirmModal>
    </Group>
  )
}
