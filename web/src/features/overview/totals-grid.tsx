import { FigureTiles } from '../../ui/figure-tiles'
import { formatBytes } from '../../ui/format-bytes'
import type { LibraryStats } from './use-library-stats'

/** The library's headline figures, one tile each. */
export function TotalsGrid({ totals }: { totals: LibraryStats['totals'] }) {
  return (
    <FigureTiles
      tiles={[
        { label: 'Models', value: totals.models.toLocaleString() },
        { label: 'Files', value: totals.files.toLocaleString() },
        { label: 'Stored', value: formatBytes(totals.bytes_stored) },
        {
          label: 'Saved by deduplication',
          value: formatBytes(totals.bytes_saved_by_dedup),
          note: `${totals.duplicate_uploads.toLocaleString()} duplicate upload${totals.duplicate_uploads === 1 ? '' : 's'}`,
        },
      ]}
    />
  )
}
