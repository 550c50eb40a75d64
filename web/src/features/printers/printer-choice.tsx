import { Alert, Loader, Radio, Stack, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { stateLabels } from './format'
import { PrinterStateBadge } from './printer-state-badge'
import { usePrinters } from './use-printers'

/**
 * Chooses the printer, showing each one's live readiness first. A printer that is not ready can
 * still be chosen: the vault checks again when sending and says why it refuses.
 */
export function PrinterChoice({ value, onChange }: { value: string | null; onChange: (id: string) => void }) {
  const printers = usePrinters()
  if (printers.isPending) return <Loader size="sm" aria-label="Loading the printers" />
  if (printers.isError) {
    return (
      <Alert color="red" role="alert">
        {problemMessage(printers.error)}
      </Alert>
    )
  }
  if (printers.data.length === 0) {
    return <Alert color="yellow">No printers yet. An admin adds them on the Printers page.</Alert>
  }
  return (
    <Radio.Group label="Printer" value={value} onChange={onChange} required>
      <Stack gap="xs" mt={6}>
        {printers.data.map((printer) => (
          <Radio.Card
            key={printer.id}
            value={printer.id}
            p="sm"
            radius="md"
            aria-label={printer.name}
            aria-describedby={`readiness-${printer.id}`}
          >
            <Stack gap={4}>
              <div style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
                <Radio.Indicator />
                <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
                  {printer.name}
                </Text>
              </div>
              <PrinterStateBadge status={printer.status} />
              <Text size="sm" c="dimmed" id={`readiness-${printer.id}`}>
                {printer.status.ready
                  ? 'Takes a job now.'
                  : `${stateLabels[printer.status.state]}${printer.status.reason ? `: ${printer.status.reason}` : ''}; the vault will refuse a job.`}
              </Text>
            </Stack>
          </Radio.Card>
        ))}
      </Stack>
    </Radio.Group>
  )
}
