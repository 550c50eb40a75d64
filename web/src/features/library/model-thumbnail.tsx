import { AspectRatio, Center, Image, Loader, Skeleton, Stack, Text } from '@mantine/core'
import { IconBox } from '@tabler/icons-react'
import { useThumbnailUrl } from '../../api/thumbnails'

/**
 * A model's server-made thumbnail (never rendered here from the mesh). Decorative: the card's text
 * names the model. Fetched as soon as it is drawn: the grid and the list that show it are
 * virtualised, so it is drawn only near the viewport. While the model has no thumbnail and its
 * files wait for the background analysis (`analysing`), it says so instead of the empty box.
 */
export function ModelThumbnail({
  id,
  hasThumbnail,
  analysing = false,
  ratio = 4 / 3,
}: {
  id: string
  hasThumbnail: boolean
  analysing?: boolean
  ratio?: number
}) {
  const thumbnail = useThumbnailUrl('models', id, hasThumbnail)
  return (
    <AspectRatio ratio={ratio} bg="var(--mantine-color-default-hover)">
      {thumbnail.url ? (
        <Image src={thumbnail.url} alt="" fit="contain" />
      ) : hasThumbnail && !thumbnail.error ? (
        <Skeleton />
      ) : analysing ? (
        <Stack
          role="img"
          aria-label="Analysing: the thumbnail is being rendered"
          gap={4}
          align="center"
          justify="center"
          c="dimmed"
        >
          <Loader size="sm" aria-hidden />
          {/* Smaller in the list's square, which is narrower than the word. */}
          <Text fz={ratio === 1 ? 10 : 'xs'} aria-hidden>
            Analysing…
          </Text>
        </Stack>
      ) : (
        <Center c="dimmed">
          <IconBox size={40} stroke={1.2} aria-hidden />
        </Center>
      )}
    </AspectRatio>
  )
}
