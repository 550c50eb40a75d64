import { Anchor, Text } from '@mantine/core'
import { Link } from 'react-router'
import type { Outcome } from './outcome'

/** One file's outcome in words, with a link to the model it went to. */
export function UploadOutcome({ outcome }: { outcome: Outcome }) {
  if (outcome.kind === 'cancelled') {
    return (
      <Text size="sm" c="dimmed">
        Cancelled
      </Text>
    )
  }
  if (outcome.kind === 'refused') {
    return (
      <Text size="sm" c="red" role="alert">
        Refused: {outcome.message}
      </Text>
    )
  }
  const lead = { 'new-model': 'New model', 'joined-model': 'Joined model', duplicate: 'Already in the vault:' }[
    outcome.kind
  ]
  return (
    <Text size="sm">
      {lead}{' '}
      <Anchor component={Link} to={`/models/${encodeURIComponent(outcome.modelId)}`}>
        {outcome.modelName}
      </Anchor>
    </Text>
  )
}
