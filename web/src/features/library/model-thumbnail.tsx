import { AspectRatio, Center, Image, Skeleton } from '@mantine/core'
import { useIntersection } from '@mantine/hooks'
import { IconBox } from '@tabler/icons-react'
import { useEffect, useState } from 'react'
import { useThumbnailUrl } from '../../api/thumbnails'

/**
 * A model's server-made thumbnail, fetched once the card comes near the viewport (never rendered
 * here from the mesh). Decorative: the card's text names the model.
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
  const { ref, entry } = useIntersection({ rootMargin: '300px' })
  const [near, setNear] = useState(false)
  useEffect(() => {
    if (entry?.isIntersecting) setNear(true)
  }, [entry?.isIntersecting])
  const thumbnail = useThumbnailUrl('models', id, hasThumbnail && near)
  return (
    <AspectRatio ratio={ratio} ref={ref} bg="var(--mantine-color-default-hover)">
      {thumbnail.url ? (
        <Image src={thumbnail.url} alt="" fit="contain" />
      ) : hasThumbnail && !thumbnail.error ? (
        <Skeleton animate={near} />
      ) : (
        <Center c="dimmed">
          <IconBox size={40} stroke={1.2} aria-hidden />
        </Center>
      )}
    </AspectRatio>
  )
}
