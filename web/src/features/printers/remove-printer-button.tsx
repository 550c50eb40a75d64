import { Button } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { notifications } from '@mantine/notifications'
import { IconTrash } from '@tabler/icons-react'
import { useNavigate } from 'react-router'
import { ConfirmModal } from '../../ui/confirm-modal'
import type { Printer } from './types'
import { useDeletePrinter } from './use-printers'

/** "Remove" behind a confirmation (admins); then back to the dashboard. */
export function RemovePrinterButton({ printer }: { printer: Printer }) {
  const [opened, { open, close }] = useDisclosure()
  const remove = useDeletePrinter(printer.id)
  const navigate = useNavigate()
  const confirm = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        notifications.show({
          color: 'green',
          message: `${printer.name} removed.`,
          closeButtonProps: { 'aria-label': 'Dismiss' },
        })
        navigate('/printers')
      },
    })
  return (
    <>
      <Button color="red" variant="outline" leftSection={<IconTrash size={16} aria-hidden />} onClick={open}>
        Remove
      </Button>
      <ConfirmModal
        opened={opened}
        title={`Remove ${printer.name}?`}
        confirmLabel="Remove printer"
        cancelLabel="Cancel"
        error={remove.error}
        pending={remove.isPending}
        onConfirm={confirm}
        onClose={close}
      >
        The vault forgets this printer and its stored credentials. Its dispatch history stays, naming it. Nothing
        changes on the printer itself.
      </ConfirmModal>
    </>
  )
}
