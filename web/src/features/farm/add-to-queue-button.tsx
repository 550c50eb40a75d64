import { Button } from '@mantine/core'
import { IconListNumbers } from '@tabler/icons-react'
import { useState } from 'react'
import { AddToQueueModal } from './add-to-queue-modal'
import type { QueuedFile } from './types'

/** "Add to queue" on a print-ready file (the model page shows it on G-code files); the set may take the model's others too. */
export function AddToQueueButton({ file }: { file: QueuedFile }) {
  const [opened, setOpened] = useState(false)
  return (
    <>
      <Button
        size="xs"
        variant="light"
        leftSection={<IconListNumbers size={14} aria-hidden />}
        onClick={() => setOpened(true)}
        aria-label={`Add to queue: ${file.name}`}
      >
        Add to queue
      </Button>
      {opened && <AddToQueueModal file={file} onClose={() => setOpened(false)} />}
    </>
  )
}
