import { QueryClient } from '@tanstack/react-query'
import { ApiError } from './problem'

/**
 * The app's query cache. A 4xx will not change by asking again, so only network failures and
 * 5xx are retried (twice).
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
      staleTime: 10_000,
    },
  },
})
