import { MultiSelect } from '@mantine/core'
import { pathLabel, treeOrder } from '../../api/collection-tree'
import { problemMessage } from '../../api/problem'
import { useCollections } from '../../api/use-collections'
import { useSetCollections } from './use-collections'

/** The collections the model is in: choosing one adds it there, removing one takes it out. */
export function CollectionsEditor(props: { modelId: string; collections: { id: string; name: string }[] }) {
  const all = useCollections()
  const save = useSetCollections(props.modelId)
  const current = props.collections.map((collection) => collection.id)
  // Its own collections are options even before the list has loaded; then every one, in tree order by its path.
  const options = new Map(props.collections.map((collection) => [collection.id, collection.name]))
  for (const placed of treeOrder(all.data ?? [])) options.set(placed.collection.id, pathLabel(placed))

  const onChange = (next: string[]) =>
    save.mutate({
      add: next.filter((id) => !current.includes(id)),
      remove: current.filter((id) => !next.includes(id)),
    })
  const error = save.error ?? all.error
  return (
    <MultiSelect
      label="Collections"
      description={options.size === 0 ? 'No collections yet: create them under Collections.' : undefined}
      placeholder={current.length === 0 ? 'Add to a collection' : undefined}
      data={[...options].map(([value, label]) => ({ value, label }))}
      value={current}
      onChange={onChange}
      error={error ? problemMessage(error) : undefined}
      disabled={save.isPending}
      searchable
      nothingFoundMessage="No such collection"
    />
  )
}
