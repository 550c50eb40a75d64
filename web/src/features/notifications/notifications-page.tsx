import { Alert, Button, Group, Loader, Stack, Text, Title } from '@mantine/core'
import { IconPlus } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { DeliveryLogModal } from './delivery-log-modal'
import { NewSecretModal } from './new-secret-modal'
import type { Webhook, WebhookInput } from './types'
import { useCreateWebhook, useUpdateWebhook, useWebhooks } from './use-webhooks'
import { WebhookFormModal } from './webhook-form-modal'
import { WebhookTable } from './webhook-table'

/** What the page shows over the list: the add or edit form, a new secret, or a delivery log. */
type Dialog =
  | { kind: 'add' }
  | { kind: 'edit'; webhook: Webhook }
  | { kind: 'secret'; name: string; secret: string }
  | { kind: 'log'; webhook: Webhook }

/**
 * Settings → Notifications: the signed-in user's webhooks, which send printer and send events to
 * a script (signed JSON), an ntfy topic or a Discord channel.
 */
export function NotificationsPage() {
  const webhooks = useWebhooks()
  const [dialog, setDialog] = useState<Dialog>()
  const close = () => setDialog(undefined)
  return (
    <Stack gap="xl">
      <Group justify="space-between" align="flex-end">
        <Stack gap={4}>
          <Title order={1}>Notifications</Title>
          <Text size="sm" c="dimmed">
            Webhooks tell you when a printer needs you or a send fails: on your phone through ntfy, in a Discord
            channel, or to your own script.
          </Text>
        </Stack>
        <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setDialog({ kind: 'add' })}>
          Add webhook
        </Button>
      </Group>
      {webhooks.isPending && <Loader size="sm" aria-label="Loading your webhooks" />}
      {webhooks.error && (
        <Alert color="red" title="Cannot load your webhooks">
          {problemMessage(webhooks.error)}
        </Alert>
      )}
      {webhooks.data?.length === 0 && <Text c="dimmed">No webhooks yet.</Text>}
      {webhooks.data && webhooks.data.length > 0 && (
        <WebhookTable
          webhooks={webhooks.data}
          onEdit={(webhook) => setDialog({ kind: 'edit', webhook })}
          onShowLog={(webhook) => setDialog({ kind: 'log', webhook })}
        />
      )}
      {dialog?.kind === 'add' && <AddWebhook onDone={setDialog} onClose={close} />}
      {dialog?.kind === 'edit' && <EditWebhook webhook={dialog.webhook} onDone={setDialog} onClose={close} />}
      {dialog?.kind === 'secret' && <NewSecretModal name={dialog.name} secret={dialog.secret} onClose={close} />}
      {dialog?.kind === 'log' && <DeliveryLogModal webhook={dialog.webhook} onClose={close} />}
    </Stack>
  )
}

/** After a save: the new secret if the answer carries one, else back to the list. */
const afterSave = (answer: { name: string; secret?: string | null }): Dialog | undefined =>
  answer.secret ? { kind: 'secret', name: answer.name, secret: answer.secret } : undefined

function AddWebhook({ onDone, onClose }: { onDone: (next: Dialog | undefined) => void; onClose: () => void }) {
  const create = useCreateWebhook()
  const submit = async (values: WebhookInput) => onDone(afterSave(await create.mutateAsync(values)))
  return <WebhookFormModal onSubmit={submit} onClose={onClose} error={create.error} pending={create.isPending} />
}

function EditWebhook({
  webhook,
  onDone,
  onClose,
}: {
  webhook: Webhook
  onDone: (next: Dialog | undefined) => void
  onClose: () => void
}) {
  const update = useUpdateWebhook(webhook.id)
  const submit = async (values: WebhookInput) => onDone(afterSave(await update.mutateAsync(values)))
  return (
    <WebhookFormModal
      webhook={webhook}
      onSubmit={submit}
      onClose={onClose}
      error={update.error}
      pending={update.isPending}
    />
  )
}
