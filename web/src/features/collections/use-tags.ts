import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { collectionsKeys } from './query-keys'
import { useLibraryMutation } from './use-collections'

export type Tag = components['schemas']['Tag']

/** Every tag in use with its model count, by name. */
export function useTags() {
  return useQuery({
    queryKey: collectionsKeys.tags,
    queryFn: async () => unwrap(await api.GET('/api/v1/tags')).items,
  })
}

/** Renames a tag on every model; a name another tag has merges the two. */
export function useRenameTag() {
  return useLibraryMutation(async ({ tag, name }: { tag: string; name: string }) =>
    unwrap(await api.PATCH('/api/v1/tags/{name}', { params: { path: { name: tag } }, body: { name } })),
  )
}

/** Takes a tag off every model. */
export function useDeleteTag() {
  return useLibraryMutation(async (tag: string) =>
    unwrap(await api.DELETE('/api/v1/tags/{name}', { params: { path: { name: tag } } })),
  )
}
