import { useMutation } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'

/**
 * Asks the vault for a fresh signed link to a model's package, at the moment it is needed: a link
 * lasts only minutes, so none is kept.
 */
export function usePackageLink(modelId: string) {
  return useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/models/{id}/package-link', { params: { path: { id: modelId } } })),
  })
}
