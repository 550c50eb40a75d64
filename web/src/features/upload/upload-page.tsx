import { SegmentedControl, Stack, Text, Title } from '@mantine/core'
import { useState } from 'react'
import type { Grouping } from './folder-models'
import { UploadDropArea } from './upload-drop-area'
import { uploadConcurrency } from './upload-queue'
import { UploadRow } from './upload-row'
import { UploadSummary } from './upload-summary'
import { useUploadQueue } from './use-upload-queue'

/** Upload: drop or choose files and folders, watch each one go in, and see where it landed. */
export function UploadPage() {
  const queue = useUploadQueue()
  const [grouping, setGrouping] = useState<Grouping>('folder')
  return (
    <Stack>
      <Title order={1}>Upload</Title>
      <Stack gap={4}>
        <Text size="sm" fw={500} id="folder-grouping">
          A folder becomes
        </Text>
        <SegmentedControl
          aria-labelledby="folder-grouping"
          value={grouping}
          onChange={(value) => setGrouping(value as Grouping)}
          data={[
            { value: 'folder', label: 'One model' },
            { value: 'file', label: 'One model per file' },
          ]}
          w="fit-content"
        />
        <Text size="xs" c="dimmed">
          {grouping === 'folder'
            ? 'Its files make one model named after the folder; its pictures and documents join it.'
            : 'Each file joins the model it matches (the same mesh, or the mesh it was sliced from) or makes its own.'}
        </Text>
      </Stack>
      <UploadDropArea onFiles={(files) => queue.add(files, grouping)} />
      {queue.items.length > 0 && (
        <>
          <UploadSummary items={queue.items} onCancelAll={queue.cancelAll} onClear={() => queue.clearFinished()} />
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
