import { Box, Image } from '@mantine/core'
import { useThumbnailUrl } from '../../api/thumbnails'

/** A collection's cover in its row: its cover model's thumbnail, or an empty square of the same size. */
export function CollectionCover({ modelId, name }: { modelId: string | null; name: string }) {
  const { url } = useThumbnailUrl('models', modelId ?? '', modelId !== null)
  return url ? (
    <Image src={url} alt={`Cover of ${name}`} w={40} h={40} radius="sm" fit="cover" />
  ) : (
    <Box w={40} h={40} bg="var(--mantine-color-default-hover)" style={{ borderRadius: 'var(--mantine-radius-sm)' }} />
  )
}
