import { Accordion, Anchor, List, Stack, Text } from '@mantine/core'
import { Link } from 'react-router'
import type { ArchiveModel, Outcome } from './outcome'

function ModelLink({ modelId, modelName }: { modelId: string; modelName: string }) {
  return (
    <Anchor component={Link} to={`/models/${encodeURIComponent(modelId)}`}>
      {modelName}
    </Anchor>
  )
}

/** One file's outcome in words, with a link to the model it went to (for a zip: each model, counts and what it skipped). */
export function UploadOutcome({ outcome }: { outcome: Outcome }) {
  if (outcome.kind === 'cancelled') {
    return (
      <Text size="sm" c="dimmed">
        Cancelled
      </Text>
    )
  }
  if (outcome.kind === 'refused' || outcome.kind === 'failed') {
    return (
      <Text size="sm" c="red" role="alert">
        {outcome.kind === 'refused' ? 'Refused' : 'Failed'}: {outcome.message}
      </Text>
    )
  }
  if (outcome.kind === 'archive') return <ArchiveOutcome {...outcome} />
  const lead = { 'new-model': 'New model', 'joined-model': 'Joined model', duplicate: 'Already in the vault:' }[
    outcome.kind
  ]
  return (
    <Text size="sm">
      {lead} <ModelLink {...outcome} />
    </Text>
  )
}

function ArchiveOutcome(props: {
  models: ArchiveModel[]
  stored: number
  duplicates: number
  skipped: { path: string; reason: string }[]
}) {
  return (
    <Stack gap={4}>
      {props.models.map((model) => (
        <Text size="sm" key={model.modelId}>
          {model.created ? 'New model' : 'Joined'} <ModelLink {...model} />
        </Text>
      ))}
      <Text size="sm">
        Unpacked: {props.stored} stored · {props.duplicates} already in the vault · {props.skipped.length} skipped
      </Text>
      {props.skipped.length > 0 && (
        <Accordion variant="contained" chevronPosition="left">
          <Accordion.Item value="skipped">
            <Accordion.Control>Why {props.skipped.length} skipped</Accordion.Control>
            <Accordion.Panel>
              <List size="sm" spacing={2}>
                {props.skipped.map(({ path, reason }) => (
                  <List.Item key={path}>
                    <Text span size="sm" ff="monospace">
                      {path}
                    </Text>
                    : {reason}
                  </List.Item>
                ))}
              </List>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      )}
    </Stack>
  )
}
