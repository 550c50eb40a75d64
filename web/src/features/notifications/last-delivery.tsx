import { Group, Loader, Text } from '@mantine/core'
import { DeliveryStatusBadge } from './delivery-status-badge'
import { useDeliveries } from './use-webhooks'

/** How the webhook's newest delivery went: its state and the receiver's answer, or that none was sent yet. */
export function LastDelivery({ webhookId }: { webhookId: string }) {
  const deliveries = useDeliveries(webhookId)
  if (deliveries.isPending) return <Loader size="xs" aria-label="Loading the last delivery" />
  const last = deliveries.data?.[0]
  if (!last)
    return (
      <Text size="sm" c="dimmed">
        {deliveries.isError ? 'Unknown' : 'None yet'}
      </Text>
    )
  return (
    <Group gap={6} wrap="nowrap">
      <DeliveryStatusBadge status={last.status} />
      {last.response_code !== null && <Text size="sm">{last.response_code}</Text>}
    </Group>
  )
}
