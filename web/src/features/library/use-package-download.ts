import { useMutation } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'

/** The most models one package holds (the API's bound). */
export const maxPackageModels = 500

/**
 * Downloads the models as one zip and saves it. The package is a POST (hundreds of ids do not fit
 * in a link), so the page fetches it and hands the browser the bytes to save.
 */
export function usePackageDownload() {
  return useMutation({
    mutationFn: async (ids: string[]) => {
      const blob = unwrap(await api.POST('/api/v1/models/package', { body: { ids }, parseAs: 'blob' }))
      const url = URL.createObjectURL(blob)
      const anchor = document.createElement('a')
      anchor.href = url
      anchor.download = `model-vault-packages-${new Date().toISOString().slice(0, 10)}.zip`
      anchor.click()
      setTimeout(() => URL.revokeObjectURL(url), 60_000)
    },
  })
}
