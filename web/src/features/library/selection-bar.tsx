import { Button, Group, Paper, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { BulkCollectionModal } from './bulk-collection-modal'
import { BulkDeleteModal } from './bulk-delete-modal'
import { BulkTagsModal } from './bulk-tags-modal'
import type { LibraryQuery } from './library-query'
import { type BulkAction, useBulkAction, useSelectionCount } from './use-bulk-action'
import { useFilterChoices } from './use-filter-choices'
import type { ModelSelection } from './use-model-selection'
import { maxPackageModels, usePackageDownload } from './use-package-download'

type Dialog = BulkAction['type']

const everyMatch: ModelSelection = { kind: 'all' }
const modelCount = (n: number) => `${n.toLocaleString()} ${n === 1 ? 'model' : 'models'}`
const done: Record<Dialog, (models: string) => string> = {
  add_tags: (models) => `Tagged ${models}.`,
  remove_tags: (models) => `Took the tags off ${models}.`,
  add_to_collection: (models) => `Added ${models} to the collection.`,
  remove_from_collection: (models) => `Took ${models} out of the collection.`,
  delete: (models) => `Deleted ${models}.`,
}

/**
 * Stays at the bottom of the window while models are selected: how many, "select all matching",
 * Clear, and the actions on the selection. Deleting clears the selection; the other actions keep it
 * for the next one.
 */
export function SelectionBar({
  query,
  selection,
  onSelectAll,
  onClear,
}: {
  query: LibraryQuery
  selection: ModelSelection
  onSelectAll: () => void
  onClear: () => void
}) {
  // The last dialog stays chosen while closed, so it closes as itself and the focus returns to its button.
  const [dialog, setDialog] = useState<Dialog>('add_tags')
  const [opened, setOpened] = useState(false)
  const close = () => setOpened(false)
  const matching = useSelectionCount(query, everyMatch, true).data?.models
  const action = useBulkAction(query, selection)
  const download = usePackageDownload()
  const choices = useFilterChoices()
  const all = selection.kind === 'all'
  const ids = selection.kind === 'ids' ? [...selection.ids] : []
  const selectedLabel = all ? `all ${matching?.toLocaleString() ?? ''} matching models` : modelCount(ids.length)
  const packable = !all && ids.length <= maxPackageModels

  const open = (next: Dialog) => {
    action.reset()
    setDialog(next)
    setOpened(true)
  }
  const apply = (chosen: BulkAction) =>
    action.mutate(chosen, {
      onSuccess: (outcome) => {
        close()
        notifications.show({ message: done[chosen.type](modelCount(outcome.models)) })
        if (chosen.type === 'delete') onClear()
      },
    })

  return (
    <Paper
      withBorder
      shadow="md"
      p="sm"
      pos="sticky"
      bottom={0}
      style={{ zIndex: 2 }}
      role="region"
      aria-label="Selection"
    >
      <Group gap="sm" justify="space-between">
        <Group gap="sm">
          <Text fw={600} aria-live="polite">
            {all
              ? `All ${matching?.toLocaleString() ?? '…'} matching selected`
              : `${ids.length.toLocaleString()} selected`}
          </Text>
          {!all && (
            <Button variant="subtle" size="compact-sm" onClick={onSelectAll}>
              Select all matching the filter{matching === undefined ? '' : ` (${matching.toLocaleString()})`}
            </Button>
          )}
          <Button variant="subtle" size="compact-sm" onClick={onClear}>
            Clear
          </Button>
        </Group>
        <Group gap="xs">
          <Button variant="default" size="xs" onClick={() => open('add_tags')}>
            Add tags
          </Button>
          <Button variant="default" size="xs" onClick={() => open('remove_tags')}>
            Remove tags
          </Button>
          <Button variant="default" size="xs" onClick={() => open('add_to_collection')}>
            Add to collection
          </Button>
          <Button variant="default" size="xs" onClick={() => open('remove_from_collection')}>
            Remove from collection
          </Button>
          <Button
            variant="default"
            size="xs"
            disabled={!packable}
            loading={download.isPending}
            title={packable ? undefined : `A package holds up to ${maxPackageModels} models picked one by one`}
            onClick={() =>
              download.mutate(ids, {
                onError: (error) =>
                  notifications.show({
                    color: 'red',
                    title: 'The package was not downloaded',
                    message: problemMessage(error),
                  }),
              })
            }
          >
            Download as package
          </Button>
          <Button color="red" size="xs" onClick={() => open('delete')}>
            Delete
          </Button>
        </Group>
      </Group>
      <BulkTagsModal
        key={dialog === 'remove_tags' ? 'remove' : 'add'}
        opened={opened && (dialog === 'add_tags' || dialog === 'remove_tags')}
        removing={dialog === 'remove_tags'}
        selectedLabel={selectedLabel}
        tagNames={choices.tags.map((tag) => tag.name)}
        error={action.error}
        pending={action.isPending}
        onApply={(tags) => apply({ type: dialog === 'remove_tags' ? 'remove_tags' : 'add_tags', tags })}
        onClose={close}
      />
      <BulkCollectionModal
        key={dialog === 'remove_from_collection' ? 'remove' : 'add'}
        opened={opened && (dialog === 'add_to_collection' || dialog === 'remove_from_collection')}
        removing={dialog === 'remove_from_collection'}
        selectedLabel={selectedLabel}
        collections={choices.collections}
        error={action.error}
        pending={action.isPending}
        onApply={(collection) =>
          apply({
            type: dialog === 'remove_from_collection' ? 'remove_from_collection' : 'add_to_collection',
            collection_id: collection,
          })
        }
        onClose={close}
      />
      <BulkDeleteModal
        opened={opened && dialog === 'delete'}
        query={query}
        selection={selection}
        error={action.error}
        pending={action.isPending}
        onConfirm={() => apply({ type: 'delete' })}
        onClose={close}
      />
    </Paper>
  )
}
