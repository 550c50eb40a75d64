import { Alert, Loader, Stack, Text, Title } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { useCollections } from '../../api/use-collections'
import { useTags } from '../../api/use-tags'
import { CollectionTable } from './collection-table'
import { CreateCollectionForm } from './create-collection-form'
import { TagTable } from './tag-table'

/**
 * Collections and tags: browse them with their counts; make collections (inside others), rename, move and delete
 * them; rename, merge and delete tags.
 */
export function CollectionsPage() {
  const collections = useCollections()
  const tags = useTags()
  return (
    <Stack gap="xl">
      <Title order={1}>Collections and tags</Title>
      <Stack component="section" aria-labelledby="collections-heading">
        <Title order={2} size="h3" id="collections-heading">
          Collections
        </Title>
        <CreateCollectionForm collections={collections.data ?? []} />
        {collections.isPending && <Loader size="sm" aria-label="Loading collections" />}
        {collections.error && (
          <Alert color="red" title="Cannot load the collections">
            {problemMessage(collections.error)}
          </Alert>
        )}
        {collections.data?.length === 0 && (
          <Text c="dimmed">No collections yet. Name one above, then add models to it from their pages.</Text>
        )}
        {collections.data && collections.data.length > 0 && <CollectionTable collections={collections.data} />}
      </Stack>
      <Stack component="section" aria-labelledby="tags-heading">
        <Title order={2} size="h3" id="tags-heading">
          Tags
        </Title>
        {tags.isPending && <Loader size="sm" aria-label="Loading tags" />}
        {tags.error && (
          <Alert color="red" title="Cannot load the tags">
            {problemMessage(tags.error)}
          </Alert>
        )}
        {tags.data?.length === 0 && (
          <Text c="dimmed">No tags yet. Tag models on their pages; a tag shows here while a model carries it.</Text>
        )}
        {tags.data && tags.data.length > 0 && <TagTable tags={tags.data} />}
      </Stack>
    </Stack>
  )
}
