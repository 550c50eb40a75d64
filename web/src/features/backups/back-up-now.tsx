import { Alert, Button, Group, Progress, Stack, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconDatabaseExport } from '@tabler/icons-react'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { problemMessage } from '../../api/problem'
import { formatBytes } from '../../ui/format-bytes'
import { backupsKeys } from './query-keys'
import { useBackup, useStartBackup } from './use-backups'

/** "Back up now", then the new backup's live progress until it is complete or failed. */
export function BackUpNow({ disabled }: { disabled: boolean }) {
  const start = useStartBackup()
  const [id, setId] = useState<string>()
  const backup = useBackup(id)
  const queryClient = useQueryClient()
  const record = backup.data ?? start.data
  const running = record?.status === 'running'

  useEffect(() => {
    if (!backup.data || backup.data.status === 'running') return
    queryClient.invalidateQueries({ queryKey: backupsKeys.list })
    if (backup.data.status === 'complete') {
      notifications.show({
        color: 'green',
        closeButtonProps: { 'aria-label': 'Dismiss' },
        message: `Backup complete (${formatBytes(backup.data.size ?? 0)}).`,
      })
    }
  }, [backup.data, queryClient])

  return (
    <Stack gap="xs">
      <Group>
        <Button
          leftSection={<IconDatabaseExport size={16} aria-hidden />}
          loading={start.isPending || running}
          disabled={disabled}
          onClick={() => start.mutate(undefined, { onSuccess: (created) => setId(created.id) })}
        >
          Back up now
        </Button>
      </Group>
      {start.error && (
        <Alert color="red" title="The backup did not start">
          {problemMessage(start.error)}
        </Alert>
      )}
      {running && (
        <Stack gap={4}>
          <Progress value={record.progress * 100} aria-label="Backup progress" animated size="lg" />
          <Text size="sm">
            Backing up: {Math.round(record.progress * 100)} % ({formatBytes(record.bytes_done)} archived)
          </Text>
        </Stack>
      )}
      {record?.status === 'failed' && (
        <Alert color="red" title="The backup failed">
          {record.error ?? 'The vault did not say why; see its log.'}
        </Alert>
      )}
    </Stack>
  )
}
