import { Button, Table, Text, Tooltip, VisuallyHidden } from '@mantine/core'
import { IconRestore } from '@tabler/icons-react'
import { formatBytes } from '../../ui/format-bytes'
import { BackupStatus, OffsiteCopy } from './backup-status'
import { formatAge, formatDateTime } from './format'
import type { Backup } from './use-backups'

/** The backups, newest first: age, status, size, offsite copy, and a Restore button for complete ones. */
export function BackupTable({ backups, onRestore }: { backups: Backup[]; onRestore: (backup: Backup) => void }) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table aria-label="Backups" verticalSpacing="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Made</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Size</Table.Th>
            <Table.Th>Offsite copy</Table.Th>
            <Table.Th>
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {backups.map((backup) => (
            <Table.Tr key={backup.id}>
              <Table.Td>
                <Tooltip label={backup.file_name}>
                  <Text size="sm">{formatAge(backup.started_at)}</Text>
                </Tooltip>
                <Text size="xs" c="dimmed">
                  {formatDateTime(backup.started_at)}
                </Text>
              </Table.Td>
              <Table.Td>
                <BackupStatus backup={backup} />
              </Table.Td>
              <Table.Td>{backup.size === null ? '—' : formatBytes(backup.size)}</Table.Td>
              <Table.Td>
                <OffsiteCopy backup={backup} />
              </Table.Td>
              <Table.Td>
                {backup.status === 'complete' && (
                  <Button
                    size="xs"
                    variant="default"
                    leftSection={<IconRestore size={14} aria-hidden />}
                    aria-label={`Restore the backup of ${formatDateTime(backup.started_at)}`}
                    onClick={() => onRestore(backup)}
                  >
                    Restore
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}
