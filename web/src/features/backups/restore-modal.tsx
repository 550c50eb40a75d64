import { Alert, Button, Group, List, Modal, Progress, Stack, Text, TextInput } from '@mantine/core'
import { IconAlertTriangle } from '@tabler/icons-react'
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { endSession } from '../../api/session'
import { formatBytes } from '../../ui/format-bytes'
import { formatDateTime } from './format'
import { RestoreProgressView } from './restore-progress-view'
import { type Backup, useRestoreBackup } from './use-backups'
import { useRestoreProgress } from './use-restore-progress'

const confirmWord = 'restore'
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`

/**
 * Restores a backup behind a typed confirmation that says what will be replaced; shows the
 * restore's progress while the vault answers 503, and then leads to signing in again (a restore
 * ends every session).
 */
export function RestoreModal({ backup, onClose }: { backup: Backup; onClose: () => void }) {
  const [typed, setTyped] = useState('')
  const restore = useRestoreBackup()
  const progress = useRestoreProgress(restore.isPending)
  const queryClient = useQueryClient()
  const confirmed = typed.trim().toLowerCase() === confirmWord || typed.trim() === backup.id
  const made = formatDateTime(backup.started_at)
  const counts = backup.manifest?.counts

  const signInAgain = () => {
    queryClient.clear()
    // 'expired': after signing in again the user comes back to this page.
    endSession('expired')
  }

  if (restore.data) {
    const result = restore.data
    return (
      <Modal opened onClose={signInAgain} withCloseButton={false} title="Restored" closeOnClickOutside={false}>
        <Stack>
          <Text size="sm">
            The vault now holds the data of the backup made {formatDateTime(result.manifest.created_at)}. Every session
            has ended, yours too: sign in again with the password you had then.
          </Text>
          <Text size="sm">
            A copy of the database as it was before is in the backup directory as <b>{result.safety_copy}</b>.
          </Text>
          {result.api_keys.some((key) => key.revoked_at === null) && (
            <Text size="sm">
              API keys revoked after this backup was made are live again: revoke them anew under Settings → Access.
            </Text>
          )}
          <Group justify="flex-end">
            <Button onClick={signInAgain} data-autofocus>
              Sign in again
            </Button>
          </Group>
        </Stack>
      </Modal>
    )
  }

  return (
    <Modal
      opened
      onClose={restore.isPending ? () => undefined : onClose}
      withCloseButton={!restore.isPending}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={`Restore the backup of ${made}?`}
      size="lg"
    >
      {restore.isPending ? (
        <Stack>
          <Text size="sm">Restoring. The vault answers nothing else until it has finished.</Text>
          {progress.data ? (
            <RestoreProgressView progress={progress.data} />
          ) : (
            <Progress value={100} animated aria-label="Restore progress" />
          )}
        </Stack>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault()
            if (confirmed) restore.mutate(backup.id)
          }}
        >
          <Stack>
            <Alert color="orange" icon={<IconAlertTriangle aria-hidden />} title="This replaces the whole vault's data">
              <List size="sm" spacing={4}>
                <List.Item>
                  The database becomes the one of {made}
                  {counts
                    ? ` (${count(counts.users, 'user')}, ${count(counts.models, 'model')}, ${count(counts.files, 'file')}; ${formatBytes(backup.size ?? 0)} archive)`
                    : ''}
                  : models, files, tags, collections, users and passwords, API keys, printers and presets as they were
                  then. Everything changed since is lost.
                </List.Item>
                <List.Item>Stored files are only added, never deleted.</List.Item>
                <List.Item>A safety copy of the current database is written to the backup directory first.</List.Item>
                <List.Item>
                  Every session ends, yours too: everyone signs in again with the passwords of then.
                </List.Item>
              </List>
            </Alert>
            <TextInput
              label={`Type “${confirmWord}” or the backup id to confirm`}
              description={`Backup id: ${backup.id}`}
              value={typed}
              onChange={(event) => setTyped(event.currentTarget.value)}
              autoComplete="off"
              data-autofocus
            />
            {restore.error && (
              <Alert color="red" title="Nothing was restored" role="alert">
                {problemMessage(restore.error)}
              </Alert>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" color="red" disabled={!confirmed}>
                Restore this backup
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  )
}
