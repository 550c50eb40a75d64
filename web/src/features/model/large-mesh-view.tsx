import { Button, Center, Stack, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import { ThumbnailImage } from './thumbnail-image'
import type { ModelFile } from './types'

/** Where the 3D view will be for a mesh too big to fetch unasked: its thumbnail, and a button that loads it. */
export function LargeMeshView({ file, onLoad }: { file: ModelFile; onLoad: () => void }) {
  return (
    <Center
      h={{ base: 300, sm: 420 }}
      bg="var(--mantine-color-default-hover)"
      style={{ borderRadius: 'var(--mantine-radius-md)' }}
    >
      <Stack align="center" gap="sm">
        <ThumbnailImage kind="files" id={file.id} available={file.has_thumbnail} alt={file.name} size={240} />
        <Text size="sm" c="dimmed" ta="center" maw={360}>
          {file.name} is large: the 3D view downloads the whole file and holds it in memory.
        </Text>
        <Button onClick={onLoad}>Load the 3D view ({formatBytes(file.size)})</Button>
      </Stack>
    </Center>
  )
}
