import { Stack, Text, Title } from '@mantine/core'
import { UploadDropArea } from './upload-drop-area'
import { uploadConcurrency } from './upload-queue'
import { UploadRow } from './upload-row'
import { UploadSummary } from './upload-summary'
import { useUploadQueue } from './use-upload-queue'

/** Upload: drop or choose files and folders, watch each one go in, and see where it landed. */
export function UploadPage() {
  const queue = useUploadQueue()
  return (
    <Stack>
      <Title order={1}>Upload</Title>
      <UploadDropArea onFiles={queue.add} />
      {queue.items.length > 0 && (
        <>
          <UploadSummary items={queue.items} onCancelAll={queue.cancelAll} onClear={queue.clearFinished} />
          <Text size="sm" c="dimmed">
            {uploadConcurrency} files upload at a time; the others wait their turn.
          </Text>
          <Stack component="ul" gap="xs" p={0} m={0} aria-label="Uploads" style={{ listStyle: 'none' }}>
            {queue.items.map((item) => (
              <UploadRow key={item.id} item={item} onCancel={() => queue.cancel(item.id)} />
            ))}
          </Stack>
        </>
      )}
    </Stack>
  )
}
