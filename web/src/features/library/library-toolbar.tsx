import { Checkbox, Group, MultiSelect, SegmentedControl, Select, TextInput } from '@mantine/core'
import { useDebouncedCallback } from '@mantine/hooks'
import { IconSearch } from '@tabler/icons-react'
import { useEffect, useState } from 'react'
import {
  type FileFormat,
  fileFormats,
  type LibraryQuery,
  type LibraryView,
  type SortKey,
  sortLabels,
} from './library-query'

interface ToolbarProps {
  query: LibraryQuery
  view: LibraryView
  onChange: (change: Partial<LibraryQuery> & { view?: LibraryView }) => void
}

/** Search (sent as the user pauses typing), format and G-code filters, sort, and grid or list. */
export function LibraryToolbar({ query, view, onChange }: ToolbarProps) {
  const [text, setText] = useState(query.q)
  const sendSearch = useDebouncedCallback((q: string) => onChange({ q }), 300)
  // The URL changed under us (Back, a link): show its search.
  useEffect(() => setText(query.q), [query.q])

  return (
    <Group align="flex-end" gap="sm">
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
        style={{ flex: '1 1 16rem' }}
      />
      <MultiSelect
        label="Formats"
        placeholder={query.formats.length > 0 ? undefined : 'Any'}
        data={fileFormats.map((format) => ({ value: format, label: format.toUpperCase() }))}
        value={query.formats}
        onChange={(formats) => onChange({ formats: formats as FileFormat[] })}
        clearable
        style={{ flex: '0 1 14rem' }}
      />
      <Select
        label="Sort by"
        data={Object.entries(sortLabels).map(([value, label]) => ({ value, label }))}
        value={query.sort}
        onChange={(sort) => sort && onChange({ sort: sort as SortKey })}
        allowDeselect={false}
        style={{ flex: '0 1 12rem' }}
      />
      <Checkbox
        label="Has G-code"
        checked={query.hasGcode}
        onChange={(event) => onChange({ hasGcode: event.currentTarget.checked })}
        mb={8}
      />
      <SegmentedControl
        aria-label="View"
        data={[
          { value: 'grid', label: 'Grid' },
          { value: 'list', label: 'List' },
        ]}
        value={view}
        onChange={(next) => onChange({ view: next as LibraryView })}
      />
    </Group>
  )
}
