import { Anchor, Group, Image, Stack, Text, ThemeIcon } from '@mantine/core'
import { IconCube } from '@tabler/icons-react'
import { Link } from 'react-router'
import type { components } from '../../api/schema'
import { useThumbnailUrl } from '../../api/thumbnails'

type SuggestedModel = components['schemas']['SuggestedModel']

/** One model of a group: its thumbnail, its name (a link to its page), its files and age. */
export function SuggestedModelLine({ model }: { model: SuggestedModel }) {
  const thumbnail = useThumbnailUrl('models', model.id, model.has_thumbnail)
  return (
    <Group gap="sm" wrap="nowrap">
      {thumbnail.url ? (
        <Image src={thumbnail.url} alt="" w={48} h={48} radius="sm" fit="contain" />
      ) : (
        <ThemeIcon variant="light" color="gray" size={48} aria-hidden>
          <IconCube size={24} stroke={1.5} />
        </ThemeIcon>
      )}
      <Stack gap={0} miw={0}>
        <Anchor component={Link} to={`/models/${model.id}`} style={{ overflowWrap: 'anywhere' }}>
          {model.name}
        </Anchor>
        <Text size="xs" c="dimmed">
          {model.file_count === 1 ? '1 file' : `${model.file_count} files`} · added{' '}
          {new Date(model.created_at).toLocaleDateString()}
        </Text>
      </Stack>
    </Group>
  )
}
