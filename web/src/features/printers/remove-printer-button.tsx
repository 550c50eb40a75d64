import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconTrash } from '@tabler/icons-react'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { problemMessage } from '../../api/problem'
import type { Printer } from './types'
import { useDeletePrinter } from './use-printers'

/** "Remove" behind a confirmation (admins); then back to the dashboard. */
export function RemovePrinterButton({ printer }: { printer: Printer }) {
  const [opened, setOpened] = useState(false)
  const remove = useDeletePrinter(printer.id)
  const navigate = useNavigate()
  const confirm = async () => {
    try {
      await remove.mutateAsync()
      notifications.show({
        color: 'green',
        message: `${printer.name} removed.`,
        closeButtonProps: { 'aria-label': 'Dismiss' },
      })
      navigate('/printers')
    } catch {
      // Shown in the dialog.
    }
  }
  return (
    <>
      <Button
        color="red"
        variant="outline"
        leftSection={<IconTrash size={16} aria-hidden />}
        onClick={() => setOpened(true)}
      >
        Remove
      </Button>
      <Modal
        opened={opened}
        onClose={() => setOpened(false)}
        title={`Remove ${printer.name}?`}
        closeButtonProps={{ 'aria-label': 'Close dialog' }}
      >
        <Stack>
          <Text>
            The vault forgets this printer and its stored credentials. Its dispatch history stays, naming it. Nothing
            changes on the printer itself.
          </Text>
          {remove.isError && (
            <Alert color="red" role="alert">
              {problemMessage(remove.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpened(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={confirm} loading={remove.isPending}>
              Remove printer
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  )
}
