import { Alert, Badge, Button, Group, Paper, Stack, Text } from '@mantine/core'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { ConfirmModal } from '../../ui/confirm-modal'
import { SuggestedModelLine } from './suggested-model'
import { type MergeSuggestion, useDismissGroup, useMergeGroup } from './use-merge-suggestions'

const reasonText: Record<MergeSuggestion['reasons'][number], string> = {
  same_name: 'Same name',
  gcode_names_mesh: 'G-code sliced from its mesh',
}

/** One group: the model the others would join, the others, why, and Merge or "Not the same". */
export function MergeGroupCard({ group }: { group: MergeSuggestion }) {
  const [confirming, setConfirming] = useState(false)
  const merge = useMergeGroup()
  const dismiss = useDismissGroup()
  const others = group.others.map((model) => `“${model.name}”`).join(', ')
  const files = group.others.reduce((sum, model) => sum + model.file_count, 0)
  return (
    <Paper withBorder p="md" component="li" aria-label={`Group of ${group.target.name}`}>
      <Stack gap="sm">
        <Group gap="xs">
          {group.reasons.map((reason) => (
            <Badge key={reason} variant="light">
              {reasonText[reason]}
            </Badge>
          ))}
        </Group>
        <Text size="sm" fw={600}>
          Would join:
        </Text>
        <SuggestedModelLine model={group.target} />
        <Text size="sm" fw={600}>
          {group.others.length === 1 ? 'This model' : 'These models'}:
        </Text>
        {group.others.map((model) => (
          <SuggestedModelLine key={model.id} model={model} />
        ))}
        {dismiss.error && (
          <Alert color="red" role="alert">
            {problemMessage(dismiss.error)}
          </Alert>
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" loading={dismiss.isPending} onClick={() => dismiss.mutate(group)}>
            Not the same
          </Button>
          <Button onClick={() => setConfirming(true)}>Merge into “{group.target.name}”</Button>
        </Group>
      </Stack>
      <ConfirmModal
        opened={confirming}
        title={`Merge into “${group.target.name}”?`}
        confirmLabel="Merge"
        cancelLabel="Keep them apart"
        error={merge.error}
        pending={merge.isPending}
        onConfirm={() => merge.mutate(group, { onSuccess: () => setConfirming(false) })}
        onClose={() => setConfirming(false)}
      >
        The {files === 1 ? 'file' : `${files} files`} of {others}, with their tags and collections, join “
        {group.target.name}”, and {group.others.length === 1 ? 'that model is' : 'those models are'} deleted. Moving the
        files to a new model from its page undoes it.
      </ConfirmModal>
    </Paper>
  )
}
