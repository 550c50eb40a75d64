import { Anchor, Button, Stack, Table, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { Link } from 'react-router'
import { durationText, filamentText } from './format'
import { ReviewRunModal } from './review-run-modal'
import { RunPhoto } from './run-photo'
import { RunStateBadge } from './run-state-badge'
import type { PrintRun } from './use-print-runs'

/**
 * One print run: its file and where it printed (a link to the printer on a model's history, to the
 * model on a printer's), when and how long, its outcome and filament, the verdict, note and photo,
 * and once it has ended, a Review button.
 */
export function PrintRunRow({ run, linkTo }: { run: PrintRun; linkTo: 'printer' | 'model' }) {
  const [reviewing, { open, close }] = useDisclosure(false)
  const link =
    linkTo === 'printer'
      ? run.printer_id && { to: `/printers/${run.printer_id}`, label: run.printer_name }
      : run.model_id && { to: `/models/${run.model_id}`, label: run.file_name }
  return (
    <Table.Tr>
      <Table.Td style={{ verticalAlign: 'top' }}>
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {linkTo === 'model' && link ? (
            <Anchor component={Link} to={link.to} size="sm">
              {link.label}
            </Anchor>
          ) : (
            run.file_name
          )}
        </Text>
        <Text size="xs" c="dimmed">
          {linkTo === 'printer' &&
            (link ? (
              <Anchor component={Link} to={link.to} size="xs" underline="always">
                {link.label}
              </Anchor>
            ) : (
              `${run.printer_name} (removed)`
            ))}
          {linkTo === 'printer' && ' · '}
          {new Date(run.started_at).toLocaleString()} · {durationText(run.duration_s)}
        </Text>
      </Table.Td>
      <Table.Td style={{ verticalAlign: 'top' }}>
        <Stack gap={4} align="flex-start">
          <RunStateBadge state={run.state} />
          {run.reason && <Text size="xs">{run.reason}</Text>}
        </Stack>
      </Table.Td>
      <Table.Td style={{ verticalAlign: 'top' }}>
        <Text size="sm">{filamentText(run)}</Text>
      </Table.Td>
      <Table.Td style={{ verticalAlign: 'top' }}>
        <Stack gap={4} align="flex-start">
          {run.verdict && <Text size="sm">{run.verdict === 'good' ? 'Good' : 'Failed'}</Text>}
          {run.note && (
            <Text size="xs" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
              {run.note}
            </Text>
          )}
          <RunPhoto run={run} />
          {run.state !== 'printing' && (
            <Button size="compact-xs" variant="light" onClick={open} aria-label={`Review ${run.file_name}`}>
              Review
            </Button>
          )}
        </Stack>
        {reviewing && <ReviewRunModal run={run} opened={reviewing} onClose={close} />}
      </Table.Td>
    </Table.Tr>
  )
}
