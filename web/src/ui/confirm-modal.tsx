import { Button, Modal, Stack, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { DialogActions } from './dialog-actions'

interface ConfirmModalProps {
  /**
   * Keep the modal mounted and switch this, so the focus goes back to what opened it on close
   * (Mantine returns it when `opened` turns false, not when the modal unmounts). Default: open.
   */
  opened?: boolean
  title: string
  /** What the action does and what it leaves alone, in words. */
  children: ReactNode
  confirmLabel: string
  cancelLabel: string
  /** The refusal of the last try, shown as the vault's readable message. */
  error: unknown
  pending: boolean
  onConfirm: () => void
  onClose: () => void
}

/** Asks before a destructive action; the safe choice has the focus, the refusal shows in place. */
export function ConfirmModal(props: ConfirmModalProps) {
  return (
    <Modal
      opened={props.opened ?? true}
      onClose={props.onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={props.title}
    >
      <Stack>
        <Text size="sm">{props.children}</Text>
        <DialogActions error={props.error} onCancel={props.onClose} cancelLabel={props.cancelLabel}>
          <Button color="red" loading={props.pending} onClick={props.onConfirm}>
            {props.confirmLabel}
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  )
}
