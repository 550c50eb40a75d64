import { useMutation } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'

export type DownloadLink = components['schemas']['DownloadLink']

/**
 * Asks the vault for a fresh signed link to one file, at the moment it is needed: a link lasts
 * only minutes, so none is kept.
 */
export function useDownloadLink(fileId: string) {
  return useMutation({
    mutationFn: async () =>
      unwrap(await api.POST('/api/v1/files/{id}/download-link', { params: { path: { id: fileId } } })),
  })
}
