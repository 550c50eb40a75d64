import '@mantine/dropzone/styles.css'
import { Group, Text } from '@mantine/core'
import { Dropzone } from '@mantine/dropzone'
import { IconUpload } from '@tabler/icons-react'
import { uploadQueue } from './upload-queue'
import { useDropTarget } from './use-drop-target'

/**
 * Files and folders dragged over any signed-in page: the whole window becomes a drop target, and
 * what is dropped joins the upload queue (its progress shows in the header and on the Upload page).
 * On a model's page the drop adds to that model, and the overlay says so. It is for the pointer only:
 * no Tab stop and nothing in the accessibility tree (the keyboard's way is the Upload page's and the
 * model page's buttons), so Tab and screen readers never meet an invisible window-wide target.
 */
export function UploadAnywhere() {
  const target = useDropTarget()
  return (
    <Dropzone.FullScreen
      onDrop={(files) => (target ? uploadQueue.addToModel(files, target.modelId) : uploadQueue.add(files))}
      activateOnKeyboard={false}
      aria-hidden
    >
      <Group justify="center" mih="50vh" style={{ pointerEvents: 'none' }}>
        <IconUpload size={64} stroke={1.5} aria-hidden />
        <Text size="xl">{target ? `Drop to add to ${target.modelName}` : 'Drop files and folders to upload them'}</Text>
      </Group>
    </Dropzone.FullScreen>
  )
}
