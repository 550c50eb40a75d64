import { Group, Loader, Text } from '@mantine/core'

const count = new Intl.NumberFormat()

/**
 * Says the model's files wait for the background analysis: their thumbnails and previews appear
 * once rendered (the page asks again meanwhile). A polite live region, so the count going down is
 * not read out at every step, only when it changes.
 */
export function AnalysingNotice({ files }: { files: number }) {
  return (
    <Group gap="xs" wrap="nowrap" role="status">
      <Loader size={16} aria-hidden />
      <Text size="sm" c="dimmed">
        Rendering thumbnails and previews for {count.format(files)} {files === 1 ? 'file' : 'files'}…
      </Text>
    </Group>
  )
}
