import { useQuery } from '@tanstack/react-query'
import { api } from './client'
import { unwrap } from './problem'
import { useObjectUrl } from './use-object-url'

/** Thumbnails by owner; their bytes never change for an id, so they are kept for the session. */
export const thumbnailKeys = {
  of: (kind: 'models' | 'files', id: string) => ['thumbnail', kind, id] as const,
}

/**
 * A model's or file's server-made thumbnail as an object URL: the thumbnail routes need the bearer
 * token, which an `<img src>` pointing at the API could not send, so the bytes come through the
 * client (and the browser's HTTP cache: the answers are immutable). Undefined until loaded, or
 * while `enabled` is false (a card not scrolled into view yet).
 */
export function useThumbnailUrl(kind: 'models' | 'files', id: string, enabled: boolean) {
  const image = useQuery({
    queryKey: thumbnailKeys.of(kind, id),
    queryFn: async () => {
      const options = { params: { path: { id } }, parseAs: 'blob' as const }
      const result =
        kind === 'models'
          ? await api.GET('/api/v1/models/{id}/thumbnail', options)
          : await api.GET('/api/v1/files/{id}/thumbnail', options)
      return unwrap(result)
    },
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  })
  const url = useObjectUrl(image.data)
  return { url, error: image.error, isLoading: image.isLoading }
}
