import { Button } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconDownload } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { saveBlob } from '../../ui/save-blob'
import type { ModelFile } from './types'
import { loadFileBytes } from './use-file-bytes'

/**
 * Downloads a file through the API client (a plain link would lack the bearer token): the bytes
 * come with progress on the button, then are saved under the file's own name.
 */
export function DownloadButton({ file }: { file: ModelFile }) {
  const [percent, setPercent] = useState<number>()
  const download = async () => {
    setPercent(0)
    try {
      const bytes = await loadFileBytes(file, ({ received, total }) => setPercent(Math.round((received / total) * 100)))
      saveBlob(new Blob([bytes], { type: file.content_type }), file.name)
    } catch (error) {
      notifications.show({ color: 'red', title: `${file.name} was not downloaded`, message: problemMessage(error) })
    } finally {
      setPercent(undefined)
    }
  }
  return (
    <Button
      size="xs"
      variant="default"
      leftSection={<IconDownload size={16} aria-hidden />}
      onClick={download}
      loading={percent !== undefined && percent < 5}
      disabled={percent !== undefined}
      aria-label={`Download ${file.name}`}
    >
      {percent === undefined ? 'Download' : `${percent}%`}
    </Button>
  )
}
