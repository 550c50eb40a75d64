import { Select, type SelectProps } from '@mantine/core'
import { pathLabel, subtreeIds, treeOrder } from '../../api/collection-tree'
import type { Collection } from './use-collections'

/**
 * Picks the collection to put another in, by its path from the top; empty means the top level.
 * With `moving`, that collection and those inside it are not offered.
 */
export function ParentSelect({
  collections,
  moving,
  value,
  onChange,
  ...props
}: Omit<SelectProps, 'data' | 'value' | 'onChange'> & {
  collections: Collection[]
  moving?: string
  value: string | null
  onChange: (parentId: string | null) => void
}) {
  const excluded = moving === undefined ? new Set<string>() : subtreeIds(collections, moving)
  const data = treeOrder(collections)
    .filter((placed) => !excluded.has(placed.collection.id))
    .map((placed) => ({ value: placed.collection.id, label: pathLabel(placed) }))
  return (
    <Select
      {...props}
      data={data}
      value={value}
      onChange={onChange}
      clearable
      allowDeselect={false}
      searchable
      placeholder="Top level"
      nothingFoundMessage="No such collection"
    />
  )
}
