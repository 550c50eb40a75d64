import { Alert, Loader, Modal, Stack, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { type DataColumn, DataTable } from '../../ui/data-table'
import { DeliveryStatusBadge } from './delivery-status-badge'
import { eventTypeLabels } from './event-types'
import { formatDateTime } from './format'
import type { EventType, Webhook, WebhookDelivery } from './types'
import { useDeliveries } from './use-webhooks'

const columns: DataColumn<WebhookDelivery>[] = [
  { key: 'time', header: 'Time', cell: (delivery) => formatDateTime(delivery.created_at) },
  {
    key: 'event',
    header: 'Event',
    cell: (delivery) => (
      <Text size="sm">
        {delivery.event_type === 'webhook.test'
          ? 'Test'
          : (eventTypeLabels[delivery.event_type as EventType] ?? delivery.event_type)}
      </Text>
    ),
  },
  { key: 'status', header: 'Status', cell: (delivery) => <DeliveryStatusBadge status={delivery.status} /> },
  { key: 'code', header: 'Response', cell: (delivery) => delivery.response_code ?? '—' },
  {
    key: 'error',
    header: 'Error',
    cell: (delivery) => (
      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
        {delivery.error ?? (delivery.next_attempt_at ? `Next try ${formatDateTime(delivery.next_attempt_at)}` : '—')}
      </Text>
    ),
  },
  { key: 'attempts', header: 'Attempts', cell: (delivery) => delivery.attempts },
]

/** The webhook's delivery log, newest first: when, which event, how it went, the answer, the error, the tries. */
export function DeliveryLogModal({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const deliveries = useDeliveries(webhook.id)
  return (
    <Modal
      opened
      onClose={onClose}
      size="xl"
      title={`Deliveries to “${webhook.name}”`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <Stack>
        {deliveries.isPending && <Loader size="sm" aria-label="Loading the deliveries" />}
        {deliveries.error && (
          <Alert color="red" title="Cannot load the deliveries">
            {problemMessage(deliveries.error)}
          </Alert>
        )}
        {deliveries.data?.length === 0 && <Text c="dimmed">Nothing sent yet.</Text>}
        {deliveries.data && deliveries.data.length > 0 && (
          <DataTable label="Deliveries" columns={columns} rows={deliveries.data} rowKey={(delivery) => delivery.id} />
        )}
      </Stack>
    </Modal>
  )
}
