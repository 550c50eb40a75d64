import { Button, Center, Loader, Stack, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import type { ModelFile } from './types'

/**
 * Where the 3D view will be while a large mesh's preview is being rendered in the background: the
 * preview comes in moments (the page asks again meanwhile), and the whole file only when asked.
 */
export function PreviewComingView({ file, onLoadFull }: { file: ModelFile; onLoadFull: () => void }) {
  return (
    <Center
      h={{ base: 300, sm: 420 }}
      bg="var(--mantine-color-default-hover)"
      style={{ borderRadius: 'var(--mantine-radius-md)' }}
    >
      <Stack align="center" gap="sm" maw={360}>
        <Loader size="sm" aria-hidden />
        <Text size="sm" ta="center">
          Preparing a preview of {file.name} for the 3D view…
        </Text>
        <Button size="xs" variant="light" onClick={onLoadFull}>
          Load full detail ({formatBytes(file.size)})
        </Button>
      </Stack>
    </Center>
  )
}
