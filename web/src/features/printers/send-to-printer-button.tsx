import { Button } from '@mantine/core'
import { IconPrinter } from '@tabler/icons-react'
import { useState } from 'react'
import { SendDialog } from './send-dialog'

/** "Send to printer" for one stored G-code file (the model page shows it on G-code files). */
export function SendToPrinterButton({ fileId, fileName }: { fileId: string; fileName: string }) {
  const [opened, setOpened] = useState(false)
  return (
    <>
      <Button
        size="xs"
        variant="light"
        leftSection={<IconPrinter size={14} aria-hidden />}
        onClick={() => setOpened(true)}
        aria-label={`Send to printer: ${fileName}`}
      >
        Send to printer
      </Button>
      {opened && <SendDialog opened file={{ id: fileId, name: fileName }} onClose={() => setOpened(false)} />}
    </>
  )
}
