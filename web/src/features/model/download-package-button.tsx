import { Button } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconPackageExport } from '@tabler/icons-react'
import { problemMessage } from '../../api/problem'
import { usePackageLink } from './use-package-link'

/**
 * Downloads the whole model as one zip with its `datapackage.json` (which a vault's zip upload
 * reads back). The browser follows a signed link and saves the zip itself, to disk with its own
 * progress, so a package of any size never sits in the page's memory.
 */
export function DownloadPackageButton({ modelId, name }: { modelId: string; name: string }) {
  const link = usePackageLink(modelId)
  const download = () =>
    link.mutate(undefined, {
      onSuccess: ({ url }) => {
        const anchor = document.createElement('a')
        anchor.href = url
        anchor.download = ''
        anchor.click()
      },
      onError: (error) =>
        notifications.show({ color: 'red', title: `${name} was not downloaded`, message: problemMessage(error) }),
    })
  return (
    <Button
      variant="default"
      leftSection={<IconPackageExport size={16} aria-hidden />}
      onClick={download}
      loading={link.isPending}
    >
      Download package
    </Button>
  )
}
