import { Badge, Group } from '@mantine/core'
import type { ApiKeyScope } from './scope-presets'

/** A key's scopes, one badge each; `full` stands out, since it may do everything. */
export function ScopeBadges({ scopes }: { scopes: ApiKeyScope[] }) {
  return (
    <Group gap={4}>
      {scopes.map((scope) => (
        <Badge key={scope} variant="light" color={scope === 'full' ? 'orange' : 'blue'} tt="none">
          {scope}
        </Badge>
      ))}
    </Group>
  )
}
