import { Button, Group, Menu, Paper, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconChevronUp, IconTrash } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { useCollections } from '../../api/use-collections'
import { useTags } from '../../api/use-tags'
import { BulkCollectionModal } from './bulk-collection-modal'
import { BulkDeleteModal } from './bulk-delete-modal'
import { BulkTagsModal } from './bulk-tags-modal'
import type { LibraryQuery } from './library-query'
import { type BulkAction, useBulkAction, useSelectionCount } from './use-bulk-action'
import type { ModelSelection } from './use-model-selection'
import { maxPackageModels, usePackageDownload } from './use-package-download'

type Dialog = BulkAction['type']

/** One thing to do with the selection: a button from `sm` up, a menu item on a phone. */
interface SelectionAction {
  label: string
  run: () => void
  danger?: boolean
  disabled?: boolean
  loading?: boolean
  title?: string
}

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
  const allTags = useTags().data ?? []
  const allCollections = useCollections().data ?? []
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

  const selectAllLabel = `Select all matching the filter${matching === undefined ? '' : ` (${matching.toLocaleString()})`}`
  const actions: SelectionAction[] = [
    { label: 'Add tags', run: () => open('add_tags') },
    { label: 'Remove tags', run: () => open('remove_tags') },
    { label: 'Add to collection', run: () => open('add_to_collection') },
    { label: 'Remove from collection', run: () => open('remove_from_collection') },
    {
      label: 'Download as package',
      disabled: !packable,
      loading: download.isPending,
      title: packable ? undefined : `A package holds up to ${maxPackageModels} models picked one by one`,
      run: () =>
        download.mutate(ids, {
          onError: (error) =>
            notifications.show({
              color: 'red',
              title: 'The package was not downloaded',
              message: problemMessage(error),
            }),
        }),
    },
    { label: 'Delete', danger: true, run: () => open('delete') },
  ]

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
      <Group gap="sm" justify="space-between" wrap="nowrap">
        <Group gap="sm">
          <Text fw={600} aria-live="polite">
            {all
              ? `All ${matching?.toLocaleString() ?? '…'} matching selected`
              : `${ids.length.toLocaleString()} selected`}
          </Text>
          {!all && (
            <Button variant="subtle" size="compact-sm" onClick={onSelectAll} visibleFrom="sm">
              {selectAllLabel}
            </Button>
          )}
          <Button variant="subtle" size="compact-sm" onClick={onClear}>
            Clear
          </Button>
        </Group>
        <Group gap="xs" visibleFrom="sm">
          {actions.map((action) => (
            <Button
              key={action.label}
              variant={action.danger ? 'filled' : 'default'}
              color={action.danger ? 'red' : undefined}
              size="xs"
              disabled={action.disabled}
              loading={action.loading}
              title={action.title}
              onClick={action.run}
            >
              {action.label}
            </Button>
          ))}
        </Group>
        {/* A phone gets one line: the actions in a menu, so the bar does not cover the rows. */}
        <Menu position="top-end">
          <Menu.Target>
            <Button size="xs" variant="default" hiddenFrom="sm" rightSection={<IconChevronUp size={14} aria-hidden />}>
              Actions
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            {!all && <Menu.Item onClick={onSelectAll}>{selectAllLabel}</Menu.Item>}
            {actions.map((action) => (
              <Menu.Item
                key={action.label}
                // Not red text: Mantine's red on the menu's white falls short of AA contrast; the icon marks it.
                leftSection={action.danger ? <IconTrash size={14} aria-hidden /> : undefined}
                disabled={action.disabled || action.loading}
                title={action.title}
                onClick={action.run}
              >
                {action.label}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      </Group>
      <BulkTagsModal
        key={dialog === 'remove_tags' ? 'remove' : 'add'}
        opened={opened && (dialog === 'add_tags' || dialog === 'remove_tags')}
        removing={dialog === 'remove_tags'}
        selectedLabel={selectedLabel}
        tagNames={allTags.map((tag) => tag.name)}
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
        collections={allCollections}
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
