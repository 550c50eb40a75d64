import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '../../api/client'
import { unwrap } from '../../api/problem'
import type { components } from '../../api/schema'
import { backupsKeys } from './query-keys'

export type Backup = components['schemas']['Backup']
export type BackupDestination = components['schemas']['BackupDestination']

/** Every backup, newest first, and where backups go; refreshed every second while one runs. */
export function useBackups() {
  return useQuery({
    queryKey: backupsKeys.list,
    queryFn: async () => unwrap(await api.GET('/api/v1/backups')),
    refetchInterval: (query) => (query.state.data?.items.some((b) => b.status === 'running') ? 1000 : false),
  })
}

/** One backup, polled twice a second until it is complete or failed. */
export function useBackup(id: string | undefined) {
  return useQuery({
    queryKey: backupsKeys.one(id ?? ''),
    queryFn: async () => unwrap(await api.GET('/api/v1/backups/{id}', { params: { path: { id: id ?? '' } } })),
    enabled: id !== undefined,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? 500 : false),
  })
}

/** Starts a backup (the vault answers 202 at once with the running record). */
export function useStartBackup() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/backups')),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: backupsKeys.list }),
  })
}

/** Restores the whole install from a backup; answers when the restore is done. */
export function useRestoreBackup() {
  return useMutation({
    mutationFn: async (backupId: string) =>
      unwrap(await api.POST('/api/v1/backups/{backup_id}/restore', { params: { path: { backup_id: backupId } } })),
  })
}
