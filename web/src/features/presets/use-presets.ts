import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { FilamentBody, PresetKind, PrinterBody, Profile } from './preset-kinds'
import { presetKeys } from './query-keys'

/** The profiles of a kind whose name contains `search`, by name. */
export function usePresetList(kind: PresetKind, search: string) {
  return useQuery({
    queryKey: presetKeys.list(kind, search),
    queryFn: async (): Promise<Profile[]> => {
      const query = { query: search ? { q: search } : {} }
      const result =
        kind === 'filament'
          ? unwrap(await api.GET('/api/v1/filament-profiles', { params: query }))
          : unwrap(await api.GET('/api/v1/printer-profiles', { params: query }))
      return result.items
    },
    placeholderData: (previous) => previous,
  })
}

/** Creates a profile (no `id`) or changes one; every field is sent. */
export function useSavePreset(kind: PresetKind) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, body }: { id?: string; body: FilamentBody | PrinterBody }): Promise<Profile> => {
      if (kind === 'filament') {
        const filament = body as FilamentBody
        return id
          ? unwrap(await api.PATCH('/api/v1/filament-profiles/{id}', { params: { path: { id } }, body: filament }))
          : unwrap(await api.POST('/api/v1/filament-profiles', { body: filament }))
      }
      const printer = body as PrinterBody
      return id
        ? unwrap(await api.PATCH('/api/v1/printer-profiles/{id}', { params: { path: { id } }, body: printer }))
        : unwrap(await api.POST('/api/v1/printer-profiles', { body: printer }))
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: presetKeys.all(kind) }),
  })
}

/** Deletes a profile. */
export function useDeletePreset(kind: PresetKind) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const params = { params: { path: { id } } }
      if (kind === 'filament') unwrap(await api.DELETE('/api/v1/filament-profiles/{id}', params))
      else unwrap(await api.DELETE('/api/v1/printer-profiles/{id}', params))
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: presetKeys.all(kind) }),
  })
}

/** Imports a slicer's file as it is: the API tells the kinds of file apart and refuses others. */
export function useImportPresets(kind: PresetKind) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (file: File) => {
      const options = {
        body: await file.text(),
        headers: { 'Content-Type': 'text/plain' },
        // The file goes as it is, not as a JSON string.
        bodySerializer: (body: string) => body,
      }
      return kind === 'filament'
        ? unwrap(await api.POST('/api/v1/filament-profiles/import', options))
        : unwrap(await api.POST('/api/v1/printer-profiles/import', options))
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: presetKeys.all(kind) }),
  })
}
