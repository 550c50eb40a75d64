import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { printerKeys } from './query-keys'

/** Models with a G-code file whose name or metadata match `search`: the first page, by name. */
export function useGcodeModels(search: string) {
  return useQuery({
    queryKey: printerKeys.gcodeModels(search),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/models', {
          params: { query: { file_format: ['gcode'], q: search || undefined, sort: 'name', limit: 50 } },
        }),
      ).items,
    placeholderData: keepPreviousData,
  })
}

/** The G-code files of one model. */
export function useModelGcodeFiles(modelId: string | null) {
  return useQuery({
    queryKey: printerKeys.modelFiles(modelId ?? ''),
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/models/{id}', { params: { path: { id: modelId ?? '' } } })).files.filter(
        (file) => file.format === 'gcode',
      ),
    enabled: modelId !== null,
  })
}
