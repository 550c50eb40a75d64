import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { modelKeys } from './query-keys'

/**
 * A model's or file's thumbnail as an object URL (images need the bearer token, so an `<img src>`
 * pointing at the API would not do); undefined until loaded or when `enabled` is false.
 */
export function useThumbnailUrl(kind: 'models' | 'files', id: string, enabled: boolean) {
  const image = useQuery({
    queryKey: modelKeys.thumbnail(kind, id),
    queryFn: async () => {
      const options = { params: { path: { id } }, parseAs: 'blob' as const }
      const result =
        kind === 'models'
          ? await api.GET('/api/v1/models/{id}/thumbnail', options)
          : await api.GET('/api/v1/files/{id}/thumbnail', options)
      return unwrap(result) as Blob
    },
    enabled,
    staleTime: Number.POSITIVE_INFINITY,
  })
  const [url, setUrl] = useState<string>()
  useEffect(() => {
    if (!image.data) return setUrl(undefined)
    const objectUrl = URL.createObjectURL(image.data)
    setUrl(objectUrl)
    return () => URL.revokeObjectURL(objectUrl)
  }, [image.data])
  return { url, error: image.error, isLoading: image.isLoading }
}
