import { Button } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconPlus } from '@tabler/icons-react'
import { useState } from 'react'
import { PrinterFormModal } from './printer-form-modal'
import { useCreatePrinter } from './use-printers'

/** "Add printer" and its form (admins). */
export function AddPrinterButton() {
  const [opened, setOpened] = useState(false)
  const create = useCreatePrinter()
  const close = () => {
    setOpened(false)
    create.reset()
  }
  return (
    <>
      <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setOpened(true)}>
        Add printer
      </Button>
      {opened && (
        <PrinterFormModal
          opened
          onClose={close}
          error={create.error}
          pending={create.isPending}
          onSubmit={async ({ credentials, ...fields }) => {
            const printer = await create.mutateAsync({ ...fields, ...(credentials ? { credentials } : {}) })
            notifications.show({
              color: 'green',
              message: `${printer.name} added.`,
              closeButtonProps: { 'aria-label': 'Dismiss' },
            })
          }}
        />
      )}
    </>
  )
}
