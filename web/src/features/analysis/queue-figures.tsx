import { FigureTiles } from '../../ui/figure-tiles'
import { formatCount, formatTimeLeft } from './format'
import type { AnalysisStatus } from './use-analysis'

const rate = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 })

/** The queue's figures, one tile each: waiting, rendering now, the rate and the time left. */
export function QueueFigures({ status }: { status: AnalysisStatus }) {
  return (
    <FigureTiles
      tiles={[
        { label: 'Waiting', value: formatCount(status.queued) },
        { label: 'Rendering now', value: formatCount(status.running) },
        { label: 'Rate', value: `${rate.format(status.rate_per_second)} per second`, note: 'over the last minute' },
        {
          label: 'Time left',
          value: status.seconds_left === null ? '—' : formatTimeLeft(status.seconds_left),
          note: status.seconds_left === null && status.queued + status.running > 0 ? 'not known yet' : undefined,
        },
      ]}
    />
  )
}
