import { Center, Image, Loader, Paper, Stack, Text } from '@mantine/core'
import { IconPhotoOff } from '@tabler/icons-react'
import { useThumbnailUrl } from '../../api/thumbnails'

/**
 * A model's or file's thumbnail from the vault, or a plain box saying there is none, or that it is
 * being rendered (`rendering`: the background analysis has not got to it yet).
 */
export function ThumbnailImage(props: {
  kind: 'models' | 'files'
  id: string
  available: boolean
  alt: string
  size: number
  rendering?: boolean
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
        ) : !props.available && props.rendering ? (
          <Stack align="center" gap={4}>
            <Loader size="sm" aria-hidden />
            <Text size="xs" c="dimmed">
              Rendering the thumbnail…
            </Text>
          </Stack>
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
