import { Center, Image, Loader, Paper, Stack, Text } from '@mantine/core'
import { IconPhotoOff } from '@tabler/icons-react'
import { useThumbnailUrl } from '../../api/thumbnails'

/** A model's or file's thumbnail from the vault, or a plain box saying there is none. */
export function ThumbnailImage(props: {
  kind: 'models' | 'files'
  id: string
  available: boolean
  alt: string
  size: number
}) {
  const thumbnail = useThumbnailUrl(props.kind, props.id, props.available)
  if (props.available && thumbnail.url) {
    return <Image src={thumbnail.url} alt={props.alt} w={props.size} h={props.size} fit="contain" radius="md" />
  }
  return (
    <Paper withBorder w={props.size} h={props.size} radius="md">
      <Center h="100%">
        {props.available && thumbnail.isLoading ? (
          <Loader size="sm" aria-label={`Loading ${props.alt}`} />
        ) : (
          <Stack align="center" gap={4}>
            <IconPhotoOff size={24} aria-hidden />
            <Text size="xs" c="dimmed">
              {thumbnail.error ? 'Thumbnail not loaded' : 'No thumbnail'}
            </Text>
          </Stack>
        )}
      </Center>
    </Paper>
  )
}
