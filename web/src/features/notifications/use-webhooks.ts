import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import { webhookKeys } from './query-keys'
import type { WebhookInput } from './types'

/** How many deliveries the log shows. */
const deliveryLogLimit = 50

/** The signed-in user's webhooks, oldest first. */
export function useWebhooks() {
  return useQuery({
    queryKey: webhookKeys.list,
    queryFn: async () => unwrap(await api.GET('/api/v1/webhooks')).items,
  })
}

/**
 * A webhook's delivery log, newest first; asked again every 5 s while a delivery is pending, to
 * follow its retries.
 */
export function useDeliveries(id: string) {
  return useQuery({
    queryKey: webhookKeys.deliveries(id),
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: { path: { id }, query: { limit: deliveryLogLimit } },
        }),
      ).items,
    refetchInterval: (query) => (query.state.data?.some((delivery) => delivery.status === 'pending') ? 5_000 : false),
  })
}

/** Registers a webhook; the answer carries a generic webhook's secret, this once. */
export function useCreateWebhook() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (body: WebhookInput) => unwrap(await api.POST('/api/v1/webhooks', { body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.list }),
  })
}

/** Changes a webhook; one that becomes generic gets a new secret, in this answer only. */
export function useUpdateWebhook(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async (body: Partial<WebhookInput>) =>
      unwrap(await api.PATCH('/api/v1/webhooks/{id}', { params: { path: { id } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.list }),
  })
}

/** Deletes a webhook and its delivery log. */
export function useDeleteWebhook(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async () => unwrap(await api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: webhookKeys.deliveries(id) })
      return queryClient.invalidateQueries({ queryKey: webhookKeys.list })
    },
  })
}

/** Sends a test event now and answers the delivery; the log shows it too. */
export function useTestWebhook(id: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries(id) }),
  })
}
