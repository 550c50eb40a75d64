/** The backups feature's query keys, in one place. */
export const backupsKeys = {
  list: ['backups', 'list'] as const,
  one: (id: string) => ['backups', 'one', id] as const,
  restoreProgress: ['backups', 'restore-progress'] as const,
}
