import { Badge, Text } from '@mantine/core'
import { when } from './when'

/** When a key stops working: never, a date, or a badge once it has. */
export function KeyExpiry({ expiresAt }: { expiresAt: string | null }) {
  if (expiresAt === null) return <Text size="sm">No expiry</Text>
  if (Date.parse(expiresAt) <= Date.now())
    return (
      <Badge color="gray" variant="light" tt="none">
        Expired {when(expiresAt)}
      </Badge>
    )
  return <Text size="sm">{when(expiresAt)}</Text>
}
