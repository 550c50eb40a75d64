import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { useLibraryMutation } from './use-collections'

export type Tag = components['schemas']['Tag']

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
