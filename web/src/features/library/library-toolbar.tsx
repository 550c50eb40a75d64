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
import { StandInInput } from './stand-in-input'
import { useFilterChoices } from './use-filter-choices'

interface ToolbarProps {
  query: LibraryQuery
  view: LibraryView
  onChange: (change: Partial<LibraryQuery> & { view?: LibraryView }) => void
  /**
   * False for the page's first drawing: the comboboxes are stand-ins of the same size (see
   * `StandInInput`), except a multi-select holding choices, whose pills can make it taller.
   */
  comboboxes: boolean
}

const formatsStyle = { flex: '0 1 14rem' }
const tagsStyle = { flex: '0 1 14rem' }
const collectionStyle = { flex: '0 1 12rem' }
const sortStyle = { flex: '0 1 12rem' }

/** Search (sent as the user pauses typing); format, G-code, tag, collection and date filters; sort; grid or list. */
export function LibraryToolbar({ query, view, onChange, comboboxes }: ToolbarProps) {
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

  const collectionName = choices.collections.find((collection) => collection.id === query.collection)?.name ?? ''

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
      {comboboxes || query.formats.length > 0 ? (
        <MultiSelect
          label="Formats"
          placeholder={query.formats.length > 0 ? undefined : 'Any'}
          data={fileFormats.map((format) => ({ value: format, label: format.toUpperCase() }))}
          value={query.formats}
          onChange={(formats) => onChange({ formats: formats as FileFormat[] })}
          clearable
          style={formatsStyle}
        />
      ) : (
        <StandInInput
          label="Formats"
          value={query.formats.map((format) => format.toUpperCase()).join(', ')}
          style={formatsStyle}
        />
      )}
      {comboboxes || query.tags.length > 0 ? (
        <MultiSelect
          label="Tags"
          placeholder={query.tags.length > 0 ? undefined : 'Any'}
          data={tagOptions}
          value={query.tags}
          onChange={(tags) => onChange({ tags })}
          searchable
          clearable
          style={tagsStyle}
        />
      ) : (
        <StandInInput label="Tags" value="" style={tagsStyle} />
      )}
      {comboboxes ? (
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
          style={collectionStyle}
        />
      ) : (
        <StandInInput label="Collection" value={collectionName} style={collectionStyle} />
      )}
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
      {comboboxes ? (
        <Select
          label="Sort by"
          data={Object.entries(sortLabels).map(([value, label]) => ({ value, label }))}
          value={query.sort}
          onChange={(sort) => sort && onChange({ sort: sort as SortKey })}
          allowDeselect={false}
          style={sortStyle}
        />
      ) : (
        <StandInInput label="Sort by" value={sortLabels[query.sort]} style={sortStyle} />
      )}
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
