import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { useObjectUrl } from '../../api/use-object-url'

export type PrintRun = components['schemas']['PrintRun']
export type PrintRunSummary = components['schemas']['PrintRunSummary']
type Review = components['schemas']['PrintRunReview']

/** Whose print history: a model's or a printer's. */
export interface RunOwner {
  kind: 'models' | 'printers'
  id: string
}

/** The print runs' query keys, in one place. */
export const printRunKeys = {
  all: ['print-runs'] as const,
  of: (owner: RunOwner) => ['print-runs', owner.kind, owner.id] as const,
  photo: (run: PrintRun) => ['print-runs', 'photo', run.id, run.photo?.size ?? 0, run.photo?.content_type] as const,
}

/** The newest 50 runs of a model or a printer, with the summary of all of them. */
export function usePrintRuns(owner: RunOwner) {
  return useQuery({
    queryKey: printRunKeys.of(owner),
    queryFn: async () => {
      const options = { params: { path: { id: owner.id }, query: { limit: 50 } } }
      return owner.kind === 'models'
        ? unwrap(await api.GET('/api/v1/models/{id}/print-runs', options))
        : unwrap(await api.GET('/api/v1/printers/{id}/print-runs', options))
    },
  })
}

/** The history as CSV, fetched through the client (it needs the bearer token), for a download. */
export async function fetchRunsCsv(owner: RunOwner): Promise<Blob> {
  const options = { params: { path: { id: owner.id } }, parseAs: 'blob' as const }
  return owner.kind === 'models'
    ? unwrap(await api.GET('/api/v1/models/{id}/print-runs.csv', options))
    : unwrap(await api.GET('/api/v1/printers/{id}/print-runs.csv', options))
}

/** Saves a run's verdict and note, then its photo when one was chosen; every history is read again. */
export function useReviewRun(runId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (input: { review: Review; photo: File | null; removePhoto: boolean }) => {
      const path = { params: { path: { id: runId } } }
      unwrap(await api.PATCH('/api/v1/print-runs/{id}', { ...path, body: input.review }))
      if (input.photo)
        unwrap(
          await api.PUT('/api/v1/print-runs/{id}/photo', {
            ...path,
            body: input.photo,
            headers: { 'Content-Type': input.photo.type || 'application/octet-stream' },
            // The image goes as it is, not as a JSON string.
            bodySerializer: (body: unknown) => body as File,
          }),
        )
      else if (input.removePhoto) unwrap(await api.DELETE('/api/v1/print-runs/{id}/photo', path))
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: printRunKeys.all }),
  })
}

/**
 * A run's photo as an object URL: the photo route needs the bearer token, which an `<img src>` could
 * not send. Keyed by the photo's type and size, so a replaced photo is fetched again.
 */
export function useRunPhotoUrl(run: PrintRun) {
  const image = useQuery({
    queryKey: printRunKeys.photo(run),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/print-runs/{id}/photo', { params: { path: { id: run.id } }, parseAs: 'blob' as const }),
      ),
    enabled: run.photo !== null,
  })
  return useObjectUrl(image.data)
}
