import { Button, Group, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import type { ModelFile } from './types'

const count = new Intl.NumberFormat()

/** Says the 3D view shows a simplified copy of a large mesh, and offers the whole file. */
export function PreviewNotice({ file, onLoadFull }: { file: ModelFile; onLoadFull: () => void }) {
  const meshTriangles = (file.metadata.mesh as { triangles?: unknown } | undefined)?.triangles
  return (
    <Group justify="space-between" gap="xs" wrap="wrap">
      <Text size="sm" c="dimmed">
        A preview: {count.format(file.preview_triangles ?? 0)}
        {typeof meshTriangles === 'number' ? ` of ${count.format(meshTriangles)}` : ''} triangles.
      </Text>
      <Button size="xs" variant="light" onClick={onLoadFull}>
        Load full detail ({formatBytes(file.size)})
      </Button>
    </Group>
  )
}
