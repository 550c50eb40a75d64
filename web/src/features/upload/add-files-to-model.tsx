import { Button, FileButton, Group, Stack, Text } from '@mantine/core'
import { IconFolderOpen, IconUpload } from '@tabler/icons-react'
import { folderInput } from './folder-input'
import { UploadRow } from './upload-row'
import { useDropsInto } from './use-drop-target'
import { useUploadQueue } from './use-upload-queue'

/**
 * On a model's page: "Add files" and "Add a folder" put files into this model (a folder's files in
 * their folders below it), as does a drop anywhere on the page; the uploads to this model show
 * below with their progress and outcome. The model's page refreshes once the queue is done.
 */
export function AddFilesToModel({ modelId, modelName }: { modelId: string; modelName: string }) {
  useDropsInto(modelId, modelName)
  const queue = useUploadQueue()
  const mine = queue.items.filter((item) => item.target?.modelId === modelId)
  const add = (files: File[]) => queue.addToModel(files, modelId)
  return (
    <Stack gap="xs">
      <Group gap="xs">
        <FileButton onChange={add} multiple>
          {(props) => (
            <Button {...props} size="xs" leftSection={<IconUpload size={16} aria-hidden />}>
              Add files
            </Button>
          )}
        </FileButton>
        <FileButton onChange={add} multiple inputProps={folderInput}>
          {(props) => (
            <Button {...props} size="xs" variant="default" leftSection={<IconFolderOpen size={16} aria-hidden />}>
              Add a folder
            </Button>
          )}
        </FileButton>
        <Text size="xs" c="dimmed">
          or drop files and folders anywhere on this page
        </Text>
      </Group>
      {mine.length > 0 && (
        <>
          <Stack component="ul" gap="xs" p={0} m={0} aria-label="Uploads to this model" style={{ listStyle: 'none' }}>
            {mine.map((item) => (
              <UploadRow key={item.id} item={item} onCancel={() => queue.cancel(item.id)} />
            ))}
          </Stack>
          {mine.every((item) => item.status === 'finished') && (
            <Button size="xs" variant="default" w="fit-content" onClick={() => queue.clearFinished(modelId)}>
              Clear the list
            </Button>
          )}
        </>
      )}
    </Stack>
  )
}
