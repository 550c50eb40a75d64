import { Button } from '@mantine/core'
import { IconListNumbers } from '@tabler/icons-react'
import { useState } from 'react'
import { AddToQueueModal } from './add-to-queue-modal'

/** "Add to queue" for one print-ready file (the model page shows it on G-code files). */
export function AddToQueueButton({ fileId, fileName }: { fileId: string; fileName: string }) {
  const [opened, setOpened] = useState(false)
  return (
    <>
      <Button
        size="xs"
        variant="light"
        leftSection={<IconListNumbers size={14} aria-hidden />}
        onClick={() => setOpened(true)}
        aria-label={`Add to queue: ${fileName}`}
      >
        Add to queue
      </Button>
      {opened && <AddToQueueModal file={{ id: fileId, name: fileName }} onClose={() => setOpened(false)} />}
    </>
  )
}
