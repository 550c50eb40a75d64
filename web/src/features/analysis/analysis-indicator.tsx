import { Group, Loader, Progress, Text, UnstyledButton } from '@mantine/core'
import { IconAlertTriangle } from '@tabler/icons-react'
import { useState } from 'react'
import { Link } from 'react-router'
import { filesOf, formatTimeLeft } from './format'
import { pendingOf, useAnalysis } from './use-analysis'

/** Where the indicator leads: the queue's figures and its failures. */
const analysisPath = '/settings/analysis'

/**
 * The header's sign of the background analysis, beside the uploads' one. In the header, not on the
 * library page: an upload answers before its thumbnails are rendered, and people go on to a model,
 * the collections or another upload meanwhile; the header is the one place on every page. While
 * files wait: how many are left, the time left at the current rate and a bar of those done since it
 * appeared; when some failed: how many, leading to the analysis page. Nothing when all is done.
 */
export function AnalysisIndicator() {
  const analysis = useAnalysis()
  const pending = analysis.data ? pendingOf(analysis.data) : 0
  // The most files seen waiting since the queue was last empty: the bar's whole.
  const [peak, setPeak] = useState(0)
  if (pending > peak || (pending === 0 && peak > 0)) setPeak(pending)
  if (!analysis.data) return null
  const { failed, seconds_left: secondsLeft } = analysis.data
  if (pending === 0 && failed === 0) return null
  const summary =
    pending > 0
      ? `Rendering thumbnails: ${filesOf(pending)} left${secondsLeft === null ? '' : ` · ${formatTimeLeft(secondsLeft)}`}`
      : `${filesOf(failed)} could not be analysed`
  return (
    <UnstyledButton component={Link} to={analysisPath} className="mantine-focus-auto" aria-label={summary}>
      <Group gap={8} wrap="nowrap">
        {pending > 0 ? (
          <>
            <Loader size={18} aria-hidden />
            <Text size="sm" visibleFrom="md">
              {summary}
            </Text>
            <Progress
              value={peak > 0 ? ((peak - pending) / peak) * 100 : 0}
              w={80}
              size="sm"
              aria-hidden
              visibleFrom="sm"
            />
          </>
        ) : (
          <>
            <IconAlertTriangle size={20} color="var(--mantine-color-orange-filled)" aria-hidden />
            <Text size="sm" visibleFrom="sm">
              {summary}
            </Text>
          </>
        )}
      </Group>
    </UnstyledButton>
  )
}
