import '@mantine/dropzone/styles.css'
import { Button, FileButton, Group, Stack, Text } from '@mantine/core'
import { Dropzone } from '@mantine/dropzone'
import { IconFolderOpen, IconUpload } from '@tabler/icons-react'
import { folderInput } from './folder-input'

/**
 * Where files come in on the Upload page: a drop area (files and folders alike; react-dropzone
 * walks dropped folders) and buttons for the file and folder pickers. A drop anywhere else in the
 * app is taken by `UploadAnywhere`.
 */
export function UploadDropArea({ onFiles }: { onFiles: (files: File[]) => void }) {
  return (
    <Dropzone
      onDrop={onFiles}
      activateOnClick={false}
      activateOnKeyboard={false}
      enablePointerEvents
      aria-label="Drop area for files and folders"
      inputProps={{ 'aria-label': 'Files to upload' }}
    >
      <Stack align="center" gap="sm" py="lg" style={{ pointerEvents: 'none' }}>
        <IconUpload size={48} stroke={1.5} aria-hidden />
        <Text size="lg" ta="center">
          Drag files and folders here, or anywhere on this page
        </Text>
        <Text size="sm" c="dimmed" ta="center">
          STL, 3MF, OBJ, G-code, STEP and any other file; a .zip is unpacked into a model. Hidden files (names starting
          with a dot) are skipped.
        </Text>
        <Text size="sm" c="dimmed" ta="center">
          Print host API keys, passwords and user names in G-code are replaced by [redacted] before it is stored. 3MF
          projects are stored as they are: remove such settings before sharing one.
        </Text>
      </Stack>
      <Group justify="center" gap="sm" pb="md">
        <FileButton onChange={onFiles} multiple>
          {(props) => (
            <Button {...props} leftSection={<IconUpload size={16} aria-hidden />}>
              Choose files
            </Button>
          )}
        </FileButton>
        <FileButton onChange={onFiles} multiple inputProps={folderInput}>
          {(props) => (
            <Button {...props} variant="default" leftSection={<IconFolderOpen size={16} aria-hidden />}>
              Choose a folder
            </Button>
          )}
        </FileButton>
      </Group>
    </Dropzone>
  )
}
