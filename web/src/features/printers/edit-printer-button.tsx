import { Button } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconPencil } from '@tabler/icons-react'
import { useState } from 'react'
import { PrinterFormModal } from './printer-form-modal'
import type { Printer } from './types'
import { useUpdatePrinter } from './use-printers'

/** "Edit" and the printer's form (admins); credentials left empty stay as stored. */
export function EditPrinterButton({ printer }: { printer: Printer }) {
  const [opened, setOpened] = useState(false)
  const update = useUpdatePrinter(printer.id)
  const close = () => {
    setOpened(false)
    update.reset()
  }
  return (
    <>
      <Button variant="default" leftSection={<IconPencil size={16} aria-hidden />} onClick={() => setOpened(true)}>
        Edit
      </Button>
      {opened && (
        <PrinterFormModal
          opened
          printer={printer}
          onClose={close}
          error={update.error}
          pending={update.isPending}
          onSubmit={async ({ credentials, ...fields }) => {
            await update.mutateAsync({ ...fields, ...(credentials === undefined ? {} : { credentials }) })
            notifications.show({
              color: 'green',
              message: `${fields.name} saved.`,
              closeButtonProps: { 'aria-label': 'Dismiss' },
            })
          }}
        />
      )}
    </>
  )
}
