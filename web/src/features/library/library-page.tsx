import { Alert, Button, Card, Center, Loader, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core'
import { useIntersection } from '@mantine/hooks'
import { IconUpload } from '@tabler/icons-react'
import { lazy, Suspense, useDeferredValue, useEffect } from 'react'
import { Link } from 'react-router'
import { problemMessage } from '../../api/problem'
import { useLibraryQuery } from './library-query'
import { LibraryToolbar } from './library-toolbar'
import { ModelGrid } from './model-grid'
import { ModelTable } from './model-table'
import { useModelSelection } from './use-model-selection'
import { useModels } from './use-models'

// Loaded once something is selected: the first screen does without its dialogs.
const SelectionBar = lazy(() => import('./selection-bar').then((module) => ({ default: module.SelectionBar })))

const gridColumns = { base: 2, sm: 3, md: 4, xl: 6 }
const skeletonKeys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']

/** The library: model cards (or rows) with search, filters and sort in the URL, loading more on scroll. */
export function LibraryPage() {
  const { query, view, update } = useLibraryQuery()
  // The first drawing shows the models with stand-ins for the toolbar's comboboxes; React draws the
  // comboboxes right after it (a deferred value's initial value comes first), in slices.
  const comboboxes = useDeferredValue(true, false)
  const models = useModels(query)
  const items = models.data?.pages.flatMap((page) => page.items) ?? []
  const selecting = useModelSelection(query, items)
  const { selection } = selecting
  const filtered =
    query.q.trim() !== '' ||
    query.formats.length > 0 ||
    query.hasGcode ||
    query.tags.length > 0 ||
    query.collection !== '' ||
    query.addedFrom !== '' ||
    query.addedTo !== ''

  // Infinite scroll: the next page loads as the end of the list comes near.
  const { ref: endRef, entry } = useIntersection({ rootMargin: '600px' })
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = models
  useEffect(() => {
    if (entry?.isIntersecting && hasNextPage && !isFetchingNextPage) void fetchNextPage()
  }, [entry?.isIntersecting, hasNextPage, isFetchingNextPage, fetchNextPage])

  return (
    <Stack>
      <Title order={1}>Library</Title>
      <LibraryToolbar query={query} view={view} onChange={update} comboboxes={comboboxes} />
      {models.isError ? (
        <Alert color="red" role="alert" title="The library could not be loaded">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{problemMessage(models.error)}</Text>
            <Button size="xs" variant="default" onClick={() => void models.refetch()}>
              Try again
            </Button>
          </Stack>
        </Alert>
      ) : models.isPending ? (
        <SimpleGrid cols={gridColumns} aria-busy="true" aria-label="Loading models">
          {skeletonKeys.map((key) => (
            <Skeleton key={key} h={240} radius="md" />
          ))}
        </SimpleGrid>
      ) : items.length === 0 ? (
        filtered ? (
          <NoMatches
            onClear={() =>
              update({ q: '', formats: [], hasGcode: false, tags: [], collection: '', addedFrom: '', addedTo: '' })
            }
          />
        ) : (
          <EmptyLibrary />
        )
      ) : view === 'grid' ? (
        <ModelGrid
          models={items}
          complete={!hasNextPage}
          isSelected={selecting.isSelected}
          onSelect={selecting.select}
          onNearEnd={() => {
            if (hasNextPage && !isFetchingNextPage) void fetchNextPage()
          }}
        />
      ) : (
        <ModelTable
          models={items}
          complete={!hasNextPage}
          isSelected={selecting.isSelected}
          onSelect={selecting.select}
        />
      )}
      <div ref={endRef} />
      {hasNextPage && (
        <Center>
          {/* For keyboards and for when scrolling does not reach the end (a very tall window). */}
          <Button variant="default" onClick={() => void fetchNextPage()} loading={isFetchingNextPage}>
            Load more
          </Button>
        </Center>
      )}
      {isFetchingNextPage && !hasNextPage && <Loader mx="auto" aria-label="Loading more models" />}
      {(selection.kind === 'all' || selection.ids.size > 0) && (
        <Suspense fallback={null}>
          <SelectionBar
            query={query}
            selection={selection}
            onSelectAll={selecting.selectAllMatching}
            onClear={selecting.clear}
          />
        </Suspense>
      )}
    </Stack>
  )
}

function EmptyLibrary() {
  return (
    <Card withBorder padding="xl">
      <Stack align="center" ta="center" gap="sm">
        <Title order={2} size="h3">
          Your library is empty
        </Title>
        <Text c="dimmed" maw={520}>
          Add STL, 3MF, OBJ, STEP or G-code files by dragging them onto the Upload page. Scripts and slicer
          post-processing hooks can send them to <code>POST /api/v1/ingest</code> with an API key.
        </Text>
        <Button component={Link} to="/upload" leftSection={<IconUpload size={16} aria-hidden />}>
          Upload files
        </Button>
      </Stack>
    </Card>
  )
}

function NoMatches({ onClear }: { onClear: () => void }) {
  return (
    <Card withBorder padding="xl">
      <Stack align="center" ta="center" gap="sm">
        <Title order={2} size="h3">
          No models match
        </Title>
        <Text c="dimmed">Every word of the search must start a word of the model, its files or their metadata.</Text>
        <Button variant="default" onClick={onClear}>
          Clear search and filters
        </Button>
      </Stack>
    </Card>
  )
}
