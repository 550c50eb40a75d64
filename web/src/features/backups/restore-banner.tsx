import { Alert } from '@mantine/core'
import { IconRestore } from '@tabler/icons-react'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { ApiError } from '../../api/problem'
import { RestoreProgressView } from './restore-progress-view'
import { restoreProgressOf, useRestoreProgress } from './use-restore-progress'

const isRestoreRefusal = (error: unknown) =>
  error instanceof ApiError && error.status === 503 && restoreProgressOf(error.problem) !== null

/**
 * A banner with the restore's progress, for every page: it appears once any call of this tab is
 * answered 503 `restore_in_progress`, follows the restore through health, and goes when it ends
 * (the queries that failed meanwhile are fetched again).
 */
export function RestoreBanner() {
  const queryClient = useQueryClient()
  // When a refusal was first seen: health answers from before then do not end the banner.
  const [seenAt, setSeenAt] = useState<number>()
  const progress = useRestoreProgress(seenAt !== undefined)

  useEffect(() => {
    const spot = (error: unknown) => {
      if (isRestoreRefusal(error)) setSeenAt((at) => at ?? Date.now())
    }
    const unsubscribeQueries = queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'failed') spot(event.action.error)
      if (event.type === 'updated' && event.action.type === 'error') spot(event.action.error)
    })
    const unsubscribeMutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'error') spot(event.action.error)
    })
    return () => {
      unsubscribeQueries()
      unsubscribeMutations()
    }
  }, [queryClient])

  useEffect(() => {
    if (seenAt !== undefined && progress.dataUpdatedAt > seenAt && progress.data === null) {
      setSeenAt(undefined)
      queryClient.invalidateQueries({ predicate: (query) => query.state.status === 'error' })
    }
  }, [seenAt, progress.dataUpdatedAt, progress.data, queryClient])

  if (seenAt === undefined || !progress.data) return null
  return (
    <Alert color="orange" icon={<IconRestore aria-hidden />} title="The vault is being restored from a backup" mb="md">
      <RestoreProgressView progress={progress.data} />
    </Alert>
  )
}
