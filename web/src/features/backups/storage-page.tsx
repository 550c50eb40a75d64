import { Alert, Loader, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { BackUpNow } from './back-up-now'
import { BackupTable } from './backup-table'
import { DestinationCard } from './destination-card'
import { RestoreModal } from './restore-modal'
import { type Backup, useBackups } from './use-backups'

/** Settings → Storage: where backups go, "Back up now" with progress, the backups, and restore. */
export function StoragePage() {
  const backups = useBackups()
  const [restoring, setRestoring] = useState<Backup>()
  const running = backups.data?.items.some((backup) => backup.status === 'running') ?? false
  return (
    <Stack gap="xl">
      <Title order={1}>Storage</Title>
      {backups.isPending && <Loader size="sm" aria-label="Loading the backups" />}
      {backups.error && (
        <Alert color="red" title="Cannot load the backups">
          {problemMessage(backups.error)}
        </Alert>
      )}
      {backups.data && <DestinationCard destination={backups.data.destination} />}
      <Stack component="section" aria-labelledby="backups-heading">
        <Title order={2} size="h3" id="backups-heading">
          Backups
        </Title>
        <Text size="sm" c="dimmed">
          A backup holds the whole vault: the database, every stored file and thumbnail.
        </Text>
        <BackUpNow disabled={running} />
        {backups.data?.items.length === 0 && <Text c="dimmed">No backups yet. Make the first one now.</Text>}
        {backups.data && backups.data.items.length > 0 && (
          <BackupTable backups={backups.data.items} onRestore={setRestoring} />
        )}
      </Stack>
      {restoring && <RestoreModal backup={restoring} onClose={() => setRestoring(undefined)} />}
    </Stack>
  )
}
