import { Alert, Button, Group, Stack } from '@mantine/core'
import { IconPlayerPause, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { PrintControlModal } from './print-control-modal'
import type { PrintControlName, Printer } from './types'
import { usePrintControl, usePrinterProviders } from './use-printers'

const icons = { pause: IconPlayerPause, resume: IconPlayerPlay, cancel: IconPlayerStop }
const labels = { pause: 'Pause', resume: 'Resume', cancel: 'Cancel' }

/** The controls the printer's state allows: pause a printing job, resume a paused one, cancel either. */
const allowedIn = (state: Printer['status']['state']): PrintControlName[] =>
  state === 'printing' ? ['pause', 'cancel'] : state === 'paused' ? ['resume', 'cancel'] : []

/**
 * Pause, Resume and Cancel for the print a printer runs, each shown only when its provider offers
 * it and the state allows it. Pause and cancel ask first, naming the print; the outcome, or the
 * vault's problem (the printer moved on, refused…), shows below.
 */
export function PrintControls({ printer }: { printer: Printer }) {
  const providers = usePrinterProviders()
  const control = usePrintControl(printer)
  const [asking, setAsking] = useState<PrintControlName | null>(null)
  const offered = providers.data?.find((provider) => provider.name === printer.provider)?.controls ?? []
  const job = printer.status.job
  const shown = job?.file_name ? allowedIn(printer.status.state).filter((name) => offered.includes(name)) : []
  const run = (name: PrintControlName) => control.mutate(name, { onSuccess: () => setAsking(null) })
  if (shown.length === 0 && !control.isError && !control.data) return null
  return (
    <Stack gap={6}>
      <Group gap="xs">
        {shown.map((name) => {
          const Icon = icons[name]
          return (
            <Button
              key={name}
              size="xs"
              variant={name === 'cancel' ? 'light' : 'default'}
              color={name === 'cancel' ? 'red' : undefined}
              leftSection={<Icon size={14} aria-hidden />}
              loading={control.isPending && control.variables === name}
              onClick={() => (name === 'resume' ? run(name) : setAsking(name))}
              aria-label={`${labels[name]} the print on ${printer.name}`}
            >
              {labels[name]}
            </Button>
          )
        })}
      </Group>
      {control.isError && !asking && (
        <Alert color="red" role="alert">
          {problemMessage(control.error)}
        </Alert>
      )}
      {control.data && !control.isPending && (
        <Alert color={control.data.outcome === 'confirmed' ? 'green' : 'yellow'} role="status">
          {control.data.detail}
        </Alert>
      )}
      {asking && (
        <PrintControlModal
          control={asking}
          printerName={printer.name}
          fileName={job?.file_name ?? ''}
          error={control.error}
          busy={control.isPending}
          onConfirm={() => run(asking)}
          onClose={() => {
            setAsking(null)
            control.reset()
          }}
        />
      )}
    </Stack>
  )
}
