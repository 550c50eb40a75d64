import { Alert, Button, Stack, Text } from '@mantine/core'
import { IconCircleCheck } from '@tabler/icons-react'
import { problemMessage } from '../../api/problem'
import type { Printer } from './types'
import { useConfirmBedClear } from './use-printers'

/**
 * "Bed is clear" for a printer that waits for it: one that asks for the bed to be confirmed clear
 * after each job (or any printer, with `always`: the print queue waits for it on every printer),
 * with a job seen since and none on the bed now.
 */
export function BedClearButton({ printer, always = false }: { printer: Printer; always?: boolean }) {
  const confirm = useConfirmBedClear(printer.id)
  const { state } = printer.status
  const waiting =
    (always || printer.require_bed_clear) &&
    printer.bed_occupied_since !== null &&
    state !== 'printing' &&
    state !== 'paused'
  if (!waiting) return null
  return (
    <Stack gap={4}>
      <Button
        color="green"
        variant="light"
        leftSection={<IconCircleCheck size={16} aria-hidden />}
        loading={confirm.isPending}
        onClick={() => confirm.mutate()}
        aria-label={`Bed is clear on ${printer.name}`}
      >
        Bed is clear
      </Button>
      <Text size="xs" c="dimmed">
        Take the last print off, then confirm; the printer takes no new job until then.
      </Text>
      {confirm.isError && (
        <Alert color="red" role="alert">
          {problemMessage(confirm.error)}
        </Alert>
      )}
    </Stack>
  )
}
