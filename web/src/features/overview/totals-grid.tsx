import { Paper, SimpleGrid, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import type { LibraryStats } from './use-library-stats'

/** The library's headline figures, one tile each. */
export function TotalsGrid({ totals }: { totals: LibraryStats['totals'] }) {
  const tiles = [
    { label: 'Models', value: totals.models.toLocaleString() },
    { label: 'Files', value: totals.files.toLocaleString() },
    { label: 'Stored', value: formatBytes(totals.bytes_stored) },
    {
      label: 'Saved by deduplication',
      value: formatBytes(totals.bytes_saved_by_dedup),
      note: `${totals.duplicate_uploads.toLocaleString()} duplicate upload${totals.duplicate_uploads === 1 ? '' : 's'}`,
    },
  ]
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} component="dl" m={0}>
      {tiles.map((tile) => (
        <Paper key={tile.label} withBorder p="md">
          <Text component="dt" size="sm" c="dimmed">
            {tile.label}
          </Text>
          <Text component="dd" m={0} fz={28} fw={700} lh={1.2}>
            {tile.value}
          </Text>
          {tile.note && (
            <Text component="dd" m={0} size="xs" c="dimmed">
              {tile.note}
            </Text>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  )
}
