import { Button } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconPackageExport } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { loadModelPackage } from './load-model-package'
import { saveBlob } from './save-blob'

/**
 * Downloads the whole model as one zip with its `datapackage.json` (which a vault's zip upload
 * reads back), with progress on the button.
 */
export function DownloadPackageButton({ modelId, name }: { modelId: string; name: string }) {
  const [percent, setPercent] = useState<number>()
  const download = async () => {
    setPercent(0)
    try {
      const { zip, fileName } = await loadModelPackage(modelId, ({ received, total }) =>
        setPercent(Math.round((received / total) * 100)),
      )
      saveBlob(zip, fileName)
    } catch (error) {
      notifications.show({ color: 'red', title: `${name} was not downloaded`, message: problemMessage(error) })
    } finally {
      setPercent(undefined)
    }
  }
  return (
    <Button
      variant="default"
      leftSection={<IconPackageExport size={16} aria-hidden />}
      onClick={download}
      loading={percent !== undefined && percent < 5}
      disabled={percent !== undefined}
    >
      {percent === undefined ? 'Download package' : `Packaging ${percent}%`}
    </Button>
  )
}
