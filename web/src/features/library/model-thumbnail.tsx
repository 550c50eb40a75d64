import { AspectRatio, Center, Image, Skeleton } from '@mantine/core'
import { IconBox } from '@tabler/icons-react'
import { useThumbnailUrl } from '../../api/thumbnails'

/**
 * A model's server-made thumbnail (never rendered here from the mesh). Decorative: the card's text
 * names the model. Fetched as soon as it is drawn: the grid and the list that show it are
 * virtualised, so it is drawn only near the viewport.
 */
export function ModelThumbnail({
  id,
  hasThumbnail,
  ratio = 4 / 3,
}: {
  id: string
  hasThumbnail: boolean
  ratio?: number
}) {
  const thumbnail = useThumbnailUrl('models', id, hasThumbnail)
  return (
    <AspectRatio ratio={ratio} bg="var(--mantine-color-default-hover)">
      {thumbnail.url ? (
        <Image src={thumbnail.url} alt="" fit="contain" />
      ) : hasThumbnail && !thumbnail.error ? (
        <Skeleton />
      ) : (
        <Center c="dimmed">
          <IconBox size={40} stroke={1.2} aria-hidden />
        </Center>
      )}
    </AspectRatio>
  )
}
