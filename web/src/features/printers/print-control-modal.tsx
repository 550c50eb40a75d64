import { ConfirmModal } from '../../ui/confirm-modal'
import type { PrintControlName } from './types'

const wording: Record<PrintControlName, { title: string; action: string; consequence: string }> = {
  pause: {
    title: 'Pause the print?',
    action: 'Pause',
    consequence: 'The printer parks the head and waits; a long pause can leave a mark on the part.',
  },
  resume: { title: 'Resume the print?', action: 'Resume', consequence: 'The printer goes on where it stopped.' },
  cancel: {
    title: 'Cancel the print?',
    action: 'Cancel print',
    consequence:
      'The print stops for good. A queued job printing it ends cancelled with the copies it had left; re-queue it to print them.',
  },
}

/** Asks before a control of a running print, naming the print and the printer; the vault's refusal shows in place. */
export function PrintControlModal(props: {
  control: PrintControlName
  printerName: string
  fileName: string
  error: unknown
  busy: boolean
  onConfirm: () => void
  onClose: () => void
}) {
  const words = wording[props.control]
  return (
    <ConfirmModal
      title={words.title}
      confirmLabel={words.action}
      cancelLabel="Keep printing"
      error={props.error}
      pending={props.busy}
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      {words.action} <strong style={{ overflowWrap: 'anywhere' }}>{props.fileName}</strong> on {props.printerName}?{' '}
      {words.consequence}
    </ConfirmModal>
  )
}
