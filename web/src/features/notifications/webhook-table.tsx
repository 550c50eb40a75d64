import { Badge, Group, Text } from '@mantine/core'
import { type DataColumn, DataTable } from '../../ui/data-table'
import { eventTypeLabels, formatLabel } from './event-types'
import { LastDelivery } from './last-delivery'
import type { Webhook } from './types'
import { WebhookActions } from './webhook-actions'

/** The user's webhooks: name and URL, format, events, whether on, the last delivery, and each one's buttons. */
export function WebhookTable({
  webhooks,
  onEdit,
  onShowLog,
}: {
  webhooks: Webhook[]
  onEdit: (webhook: Webhook) => void
  onShowLog: (webhook: Webhook) => void
}) {
  const columns: DataColumn<Webhook>[] = [
    {
      key: 'name',
      header: 'Name',
      cell: (webhook) => (
        <div>
          <Text size="sm" fw={500}>
            {webhook.name}
          </Text>
          <Text size="xs" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
            {webhook.url}
          </Text>
        </div>
      ),
    },
    { key: 'format', header: 'Format', cell: (webhook) => formatLabel(webhook.format) },
    {
      key: 'events',
      header: 'Events',
      cell: (webhook) => (
        <Text size="sm">{webhook.event_types.map((type) => eventTypeLabels[type] ?? type).join(', ')}</Text>
      ),
    },
    {
      key: 'enabled',
      header: 'Enabled',
      cell: (webhook) => (
        <Badge color={webhook.enabled ? 'green' : 'gray'} variant="light">
          {webhook.enabled ? 'On' : 'Off'}
        </Badge>
      ),
    },
    { key: 'last', header: 'Last delivery', cell: (webhook) => <LastDelivery webhookId={webhook.id} /> },
    {
      key: 'actions',
      header: null,
      cell: (webhook) => (
        <Group justify="flex-end">
          <WebhookActions webhook={webhook} onEdit={() => onEdit(webhook)} onShowLog={() => onShowLog(webhook)} />
        </Group>
      ),
    },
  ]
  return <DataTable label="Webhooks" columns={columns} rows={webhooks} rowKey={(webhook) => webhook.id} />
}
