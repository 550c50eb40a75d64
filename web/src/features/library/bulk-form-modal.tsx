import { Button, Modal, Stack, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { DialogActions } from '../../ui/dialog-actions'

/** A selection bar's dialog: what the action does, one field, and the action's button (also Enter). */
export function BulkFormModal(props: {
  opened: boolean
  /** The action, as the dialog's title and its button. */
  title: string
  description: string
  ready: boolean
  error: unknown
  pending: boolean
  onSubmit: () => void
  onClose: () => void
  children: ReactNode
}) {
  return (
    <Modal
      opened={props.opened}
      onClose={props.onClose}
      closeButtonProps={{ 'aria-label': 'Close' }}
      title={props.title}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault()
          if (props.ready) props.onSubmit()
        }}
      >
        <Stack>
          <Text size="sm">{props.description}</Text>
          {props.children}
          <DialogActions error={props.error} onCancel={props.onClose}>
            <Button type="submit" loading={props.pending} disabled={!props.ready}>
              {props.title}
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  )
}
