import { Button, Text, Tooltip } from '@mantine/core'
import { IconRestore } from '@tabler/icons-react'
import { type DataColumn, DataTable } from '../../ui/data-table'
import { formatBytes } from '../../ui/format-bytes'
import { BackupStatus, OffsiteCopy } from './backup-status'
import { formatAge, formatDateTime } from './format'
import type { Backup } from './use-backups'

/** The backups, newest first: age, status, size, offsite copy, and a Restore button for complete ones. */
export function BackupTable({ backups, onRestore }: { backups: Backup[]; onRestore: (backup: Backup) => void }) {
  const columns: DataColumn<Backup>[] = [
    {
      key: 'made',
      header: 'Made',
      cell: (backup) => (
        <>
          <Tooltip label={backup.file_name}>
            <Text size="sm">{formatAge(backup.started_at)}</Text>
          </Tooltip>
          <Text size="xs" c="dimmed">
            {formatDateTime(backup.started_at)}
          </Text>
        </>
      ),
    },
    { key: 'status', header: 'Status', cell: (backup) => <BackupStatus backup={backup} /> },
    { key: 'size', header: 'Size', cell: (backup) => (backup.size === null ? '—' : formatBytes(backup.size)) },
    { key: 'offsite', header: 'Offsite copy', cell: (backup) => <OffsiteCopy backup={backup} /> },
    {
      key: 'actions',
      header: null,
      cell: (backup) =>
        backup.status === 'complete' && (
          <Button
            size="xs"
            variant="default"
            leftSection={<IconRestore size={14} aria-hidden />}
            aria-label={`Restore the backup of ${formatDateTime(backup.started_at)}`}
            onClick={() => onRestore(backup)}
          >
            Restore
          </Button>
        ),
    },
  ]
  return <DataTable label="Backups" columns={columns} rows={backups} rowKey={(backup) => backup.id} />
}
