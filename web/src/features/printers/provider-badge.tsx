import { Badge } from '@mantine/core'
import { useProviderLabel } from './use-printers'

/** Which kind of printer host it is, as people call it. */
export function ProviderBadge({ provider }: { provider: string }) {
  return (
    <Badge variant="outline" color="gray" style={{ flexShrink: 0 }}>
      {useProviderLabel(provider)}
    </Badge>
  )
}
