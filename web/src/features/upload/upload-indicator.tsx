import { Group, RingProgress, Text, UnstyledButton } from '@mantine/core'
import { Link } from 'react-router'
import { queueProgress } from './upload-queue'
import { useUploadQueue } from './use-upload-queue'

/**
 * The header's sign of uploads on their way, from any page: files done of all (as the Upload page
 * counts them), those the vault is processing, and a ring for the bytes sent; it leads to the
 * Upload page. Nothing shows when nothing is uploading.
 */
export function UploadIndicator() {
  const { items } = useUploadQueue()
  const { done, processing, percent, busy } = queueProgress(items)
  if (!busy) return null
  const summary = `${done} of ${items.length} files uploaded${processing > 0 ? `, ${processing} processing` : ''}`
  return (
    <UnstyledButton
      component={Link}
      to="/upload"
      className="mantine-focus-auto"
      aria-label={`Uploads: ${summary}, ${percent}% sent`}
    >
      <Group gap={6} wrap="nowrap">
        <RingProgress size={32} thickness={4} roundCaps sections={[{ value: percent, color: 'blue' }]} />
        <Text size="sm" visibleFrom="xs">
          {summary}
        </Text>
      </Group>
    </UnstyledButton>
  )
}
