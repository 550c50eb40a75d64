import { Badge } from '@mantine/core'
import type { WebhookDelivery } from './types'

const looks: Record<WebhookDelivery['status'], { color: string; label: string }> = {
  pending: { color: 'yellow', label: 'Pending' },
  delivered: { color: 'green', label: 'Delivered' },
  failed: { color: 'red', label: 'Failed' },
}

/** A delivery's state as a coloured word. */
export function DeliveryStatusBadge({ status }: { status: WebhookDelivery['status'] }) {
  const look = looks[status]
  return (
    // Never shortened to an ellipsis beside the response code.
    <Badge color={look.color} variant="light" style={{ flexShrink: 0 }}>
      {look.label}
    </Badge>
  )
}
