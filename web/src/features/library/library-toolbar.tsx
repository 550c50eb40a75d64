import { Checkbox, Group, MultiSelect, SegmentedControl, Select, TextInput } from '@mantine/core'
import { useDebouncedCallback } from '@mantine/hooks'
import { IconSearch } from '@tabler/icons-react'
import { useEffect, useMemo, useState } from 'react'
import {
  type FileFormat,
  fileFormats,
  type LibraryQuery,
  type LibraryView,
  type SortKey,
  sortLabels,
} from './library-query'
import { useFilterChoices } from './use-filter-choices'

interface ToolbarProps {
  query: LibraryQuery
  view: LibraryView
  onChange: (change: Partial<LibraryQuery> & { view?: LibraryView }) => void
}

/** Search (sent as the user pauses typing); format, G-code, tag, collection and date filters; sort; grid or list. */
export function LibraryToolbar({ query, view, onChange }: ToolbarProps) {
  const [text, setText] = useState(query.q)
  const choices = useFilterChoices()
  const sendSearch = useDebouncedCallback((q: string) => onChange({ q }), 300)
  // The URL changed under us (Back, a link): show its search.
  useEffect(() => setText(query.q), [query.q])
  // Every tag with its count, and the tags in the URL even when no model has them (any more).
  const tagOptions = useMemo(() => {
    const counts = new Map(choices.tags.map((tag) => [tag.name, tag.model_count]))
    return [...new Set([...counts.keys(), ...query.tags])].map((name) => ({
      value: name,
      label: `${name} (${counts.get(name) ?? 0})`,
    }))
  }, [choices.tags, query.tags])

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
      <MultiSelect
        label="Tags"
        placeholder={query.tags.length > 0 ? undefined : 'Any'}
        data={tagOptions}
        value={query.tags}
        onChange={(tags) => onChange({ tags })}
        searchable
        clearable
        style={{ flex: '0 1 14rem' }}
      />
      <Select
        label="Collection"
        placeholder="Any"
        data={choices.collections.map((collection) => ({
          value: collection.id,
          label: `${collection.name} (${collection.model_count})`,
        }))}
        value={query.collection || null}
        onChange={(collection) => onChange({ collection: collection ?? '' })}
        searchable
        clearable
        style={{ flex: '0 1 12rem' }}
      />
      <TextInput
        label="Added from"
        type="date"
        value={query.addedFrom}
        onChange={(event) => onChange({ addedFrom: event.currentTarget.value })}
        style={{ flex: '0 1 10rem' }}
      />
      <TextInput
        label="Added until"
        type="date"
        value={query.addedTo}
        onChange={(event) => onChange({ addedTo: event.currentTarget.value })}
        style={{ flex: '0 1 10rem' }}
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
