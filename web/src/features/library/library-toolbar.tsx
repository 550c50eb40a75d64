import { Badge, Button, Drawer, Group, SegmentedControl, Stack, TextInput, VisuallyHidden } from '@mantine/core'
import { useDebouncedCallback, useDisclosure, useMediaQuery } from '@mantine/hooks'
import { IconAdjustmentsHorizontal, IconSearch } from '@tabler/icons-react'
import { useEffect, useState } from 'react'
import { activeFilterCount, LibraryFilters } from './library-filters'
import type { LibraryQuery, LibraryView } from './library-query'

interface ToolbarProps {
  query: LibraryQuery
  view: LibraryView
  onChange: (change: Partial<LibraryQuery> & { view?: LibraryView }) => void
  /** False for the page's first drawing (see `LibraryFilters`). */
  comboboxes: boolean
}

/**
 * Search (sent as the user pauses typing), the filters and sort, grid or list. From the `sm`
 * breakpoint the filters sit in the row; on a phone they wait in a drawer behind "Filters (N)", so
 * the first cards show on the first screen.
 */
export function LibraryToolbar({ query, view, onChange, comboboxes }: ToolbarProps) {
  const [text, setText] = useState(query.q)
  const sendSearch = useDebouncedCallback((q: string) => onChange({ q }), 300)
  // The URL changed under us (Back, a link): show its search.
  useEffect(() => setText(query.q), [query.q])
  // Read at once (not after a first drawing), so a wide window never flashes the phone layout.
  const wide = useMediaQuery('(min-width: 48em)', true, { getInitialValueInEffect: false })
  const [drawerOpened, drawer] = useDisclosure(false)
  const active = activeFilterCount(query)

  const search = (
    <TextInput
      label="Search"
      placeholder="Name, tag, file, slicer, filament…"
      leftSection={<IconSearch size={16} aria-hidden />}
      type="search"
      value={text}
      onChange={(event) => {
        setText(event.currentTarget.value)
        sendSearch(event.currentTarget.value)
      }}
      // A width in the row; in the phone's column a flex basis would be a height.
      style={wide ? { flex: '1 1 16rem' } : undefined}
    />
  )
  const viewControl = (
    <SegmentedControl
      aria-label="View"
      data={[
        { value: 'grid', label: 'Grid' },
        { value: 'list', label: 'List' },
      ]}
      value={view}
      onChange={(next) => onChange({ view: next as LibraryView })}
    />
  )

  if (wide)
    return (
      <Group align="flex-end" gap="sm">
        {search}
        <LibraryFilters query={query} onChange={onChange} comboboxes={comboboxes} inRow />
        {viewControl}
      </Group>
    )
  return (
    <Stack gap="xs">
      {search}
      <Group justify="space-between" gap="xs">
        <Button
          variant="default"
          leftSection={<IconAdjustmentsHorizontal size={16} aria-hidden />}
          rightSection={
            active > 0 ? (
              <Badge size="sm" circle>
                {active}
                <VisuallyHidden> active</VisuallyHidden>
              </Badge>
            ) : undefined
          }
          onClick={drawer.open}
        >
          Filters
        </Button>
        {viewControl}
      </Group>
      <Drawer
        opened={drawerOpened}
        onClose={drawer.close}
        title="Filters and sort"
        position="bottom"
        size="auto"
        closeButtonProps={{ 'aria-label': 'Close the filters' }}
      >
        <Stack gap="sm">
          <LibraryFilters query={query} onChange={onChange} comboboxes inRow={false} />
          <Button onClick={drawer.close}>Show models</Button>
        </Stack>
      </Drawer>
    </Stack>
  )
}
