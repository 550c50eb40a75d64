import { Button, Menu, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconChevronDown, IconExternalLink, IconLink } from '@tabler/icons-react'
import { problemMessage } from '../../api/problem'
import { type SlicerChoice, slicersFor } from './slicer-choices'
import type { ModelFile } from './types'
import { useDownloadLink } from './use-download-link'

/**
 * "Open in slicer" for one file: each choice asks the vault for a signed link (15 minutes, this
 * file only, no token of the user in it) and hands it to the slicer's URL scheme, which downloads
 * the file itself. Shown only for formats some slicer opens.
 */
export function OpenInSlicerMenu({ file }: { file: ModelFile }) {
  const link = useDownloadLink(file.id)
  const slicers = slicersFor(file.format)
  if (slicers.length === 0) return null

  const withLink = async (use: (answer: Awaited<ReturnType<typeof link.mutateAsync>>) => void | Promise<void>) => {
    try {
      await use(await link.mutateAsync())
    } catch (error) {
      notifications.show({ color: 'red', title: `No link to ${file.name}`, message: problemMessage(error) })
    }
  }
  const open = (slicer: SlicerChoice) =>
    withLink((answer) => {
      const target = answer.slicer_links[slicer.linkKey(navigator.userAgent)]
      if (!target) throw new Error(`${slicer.label} does not open ${file.format.toUpperCase()} files from a link.`)
      window.location.href = target
    })
  const copy = () =>
    withLink(async (answer) => {
      await navigator.clipboard.writeText(answer.url)
      notifications.show({
        title: 'Download link copied',
        message: `It serves ${file.name} to whoever has it, without signing in, for ${Math.round(answer.expires_in / 60)} minutes.`,
      })
    })

  // Without Mantine's focus placeholder: an unlabelled focusable div inside role="menu" breaks
  // ARIA's required children (only menu items belong there).
  return (
    <Menu position="bottom-end" withinPortal withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <Button
          size="xs"
          variant="default"
          leftSection={<IconExternalLink size={16} aria-hidden />}
          rightSection={<IconChevronDown size={14} aria-hidden />}
          loading={link.isPending}
          aria-label={`Open in slicer: ${file.name}`}
        >
          Open in slicer
        </Button>
      </Menu.Target>
      <Menu.Dropdown maw={300}>
        {slicers.map((slicer) => (
          <Menu.Item key={slicer.label} onClick={() => open(slicer)}>
            {slicer.label}
          </Menu.Item>
        ))}
        <Menu.Item disabled>
          PrusaSlicer
          <Text size="xs" component="span" display="block">
            Opens links from printables.com, thingiverse.com and cults3d.com only
          </Text>
        </Menu.Item>
        <Menu.Item leftSection={<IconLink size={16} aria-hidden />} onClick={copy}>
          Copy download link
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  )
}
