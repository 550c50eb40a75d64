import { Checkbox, MultiSelect, Select, TextInput } from '@mantine/core'
import { useMemo } from 'react'
import { pathLabel, treeOrder } from '../../api/collection-tree'
import { useCollections } from '../../api/use-collections'
import { useTags } from '../../api/use-tags'
import { type FileFormat, fileFormats, type LibraryQuery, type SortKey, sortLabels } from './library-query'
import { StandInInput } from './stand-in-input'

interface FiltersProps {
  query: LibraryQuery
  onChange: (change: Partial<LibraryQuery>) => void
  /**
   * False for the page's first drawing: the comboboxes are stand-ins of the same size (see
   * `StandInInput`), except a multi-select holding choices, whose pills can make it taller.
   */
  comboboxes: boolean
  /** Laid out in a row (flex widths) rather than a column. */
  inRow: boolean
}

/** Widths in a row; in a column (a drawer) each takes the whole width. */
const rowStyles = {
  formats: { flex: '0 1 14rem' },
  tags: { flex: '0 1 14rem' },
  collection: { flex: '0 1 12rem' },
  date: { flex: '0 1 10rem' },
  sort: { flex: '0 1 12rem' },
}
const columnStyles = { formats: {}, tags: {}, collection: {}, date: {}, sort: {} }

/** How many of the library's filters are set (sorting is not one): the count a phone's Filters button shows. */
export const activeFilterCount = (query: LibraryQuery) =>
  [
    query.formats.length > 0,
    query.tags.length > 0,
    query.collection !== '',
    query.addedFrom !== '',
    query.addedTo !== '',
    query.hasGcode,
  ].filter(Boolean).length

/** Format, tag, collection, date and G-code filters, and the sort: laid out by whatever holds them (a row, a drawer). */
export function LibraryFilters({ query, onChange, comboboxes, inRow }: FiltersProps) {
  const style = inRow ? rowStyles : columnStyles
  const allTags = useTags().data ?? []
  const allCollections = useCollections().data ?? []
  // Every tag with its count, and the tags in the URL even when no model has them (any more).
  const tagOptions = useMemo(() => {
    const counts = new Map(allTags.map((tag) => [tag.name, tag.model_count]))
    return [...new Set([...counts.keys(), ...query.tags])].map((name) => ({
      value: name,
      label: `${name} (${counts.get(name) ?? 0})`,
    }))
  }, [allTags, query.tags])

  const chosen = treeOrder(allCollections).find((placed) => placed.collection.id === query.collection)
  const collectionName = chosen ? pathLabel(chosen) : ''

  return (
    <>
      {comboboxes || query.formats.length > 0 ? (
        <MultiSelect
          label="Formats"
          placeholder={query.formats.length > 0 ? undefined : 'Any'}
          data={fileFormats.map((format) => ({ value: format, label: format.toUpperCase() }))}
          value={query.formats}
          onChange={(formats) => onChange({ formats: formats as FileFormat[] })}
          clearable
          style={style.formats}
        />
      ) : (
        <StandInInput
          label="Formats"
          value={query.formats.map((format) => format.toUpperCase()).join(', ')}
          style={style.formats}
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
          style={style.tags}
        />
      ) : (
        <StandInInput label="Tags" value="" style={style.tags} />
      )}
      {comboboxes ? (
        <Select
          label="Collection"
          placeholder="Any"
          // Tree order, each named by its path ("Terrain › Walls"), its own models counted.
          data={treeOrder(allCollections).map((placed) => ({
            value: placed.collection.id,
            label: `${pathLabel(placed)} (${placed.collection.model_count})`,
          }))}
          value={query.collection || null}
          onChange={(collection) => onChange({ collection: collection ?? '' })}
          searchable
          clearable
          style={style.collection}
        />
      ) : (
        <StandInInput label="Collection" value={collectionName} style={style.collection} />
      )}
      <TextInput
        label="Added from"
        type="date"
        value={query.addedFrom}
        onChange={(event) => onChange({ addedFrom: event.currentTarget.value })}
        style={style.date}
      />
      <TextInput
        label="Added until"
        type="date"
        value={query.addedTo}
        onChange={(event) => onChange({ addedTo: event.currentTarget.value })}
        style={style.date}
      />
      {comboboxes ? (
        <Select
          label="Sort by"
          data={Object.entries(sortLabels).map(([value, label]) => ({ value, label }))}
          value={query.sort}
          onChange={(sort) => sort && onChange({ sort: sort as SortKey })}
          allowDeselect={false}
          style={style.sort}
        />
      ) : (
        <StandInInput label="Sort by" value={sortLabels[query.sort]} style={style.sort} />
      )}
      <Checkbox
        label="Has G-code"
        checked={query.hasGcode}
        onChange={(event) => onChange({ hasGcode: event.currentTarget.checked })}
        mb={8}
      />
    </>
  )
}
