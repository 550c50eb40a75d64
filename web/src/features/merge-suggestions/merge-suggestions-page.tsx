import { Alert, Anchor, Loader, Stack, Text, Title } from '@mantine/core'
import { Link } from 'react-router'
import { problemMessage } from '../../api/problem'
import { MergeGroupCard } from './merge-group-card'
import { useMergeSuggestions } from './use-merge-suggestions'

/**
 * The groups of models that look like one (what earlier versions split: one model per file, a
 * G-code apart from its mesh), each to merge or to dismiss. Nothing is merged without a click.
 */
export function MergeSuggestionsPage() {
  const suggestions = useMergeSuggestions()
  return (
    <Stack gap="lg">
      <Anchor component={Link} to="/library" size="sm">
        ← Library
      </Anchor>
      <Title order={1}>Models that look like one</Title>
      <Text c="dimmed" maw={720}>
        Models with the same name, and a model whose G-code was sliced from another model's mesh. Merge a group to make
        it one model, or say it is not the same: it is not offered again unless another model joins it.
      </Text>
      {suggestions.isPending && <Loader aria-label="Looking for models that look like one" />}
      {suggestions.isError && (
        <Alert color="red" role="alert">
          {problemMessage(suggestions.error)}
        </Alert>
      )}
      {suggestions.data?.total === 0 && <Text>No models look like one another.</Text>}
      {suggestions.data && suggestions.data.total > suggestions.data.groups.length && (
        <Text size="sm">
          The first {suggestions.data.groups.length} of {suggestions.data.total} groups; more show as these are done.
        </Text>
      )}
      {suggestions.data && suggestions.data.groups.length > 0 && (
        <Stack component="ul" gap="md" p={0} m={0} style={{ listStyle: 'none' }} aria-label="Groups">
          {suggestions.data.groups.map((group) => (
            <MergeGroupCard key={[group.target.id, ...group.others.map((model) => model.id)].join()} group={group} />
          ))}
        </Stack>
      )}
    </Stack>
  )
}
