import { Center, Loader, Progress, Stack, Text } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import type { ByteProgress } from './use-file-bytes'

/** Where the 3D view will be, while its file downloads (with progress once bytes arrive) or three.js loads. */
export function LoadingView({ name, progress }: { name: string; progress?: ByteProgress }) {
  const percent = progress ? Math.round((progress.received / progress.total) * 100) : 0
  return (
    <Center
      h={{ base: 300, sm: 420 }}
      bg="var(--mantine-color-default-hover)"
      style={{ borderRadius: 'var(--mantine-radius-md)' }}
    >
      <Stack align="center" w="80%" maw={360} gap="xs">
        <Loader size="sm" aria-hidden />
        <Text size="sm">Loading {name} for the 3D view…</Text>
        {progress && (
          <>
            <Progress value={percent} w="100%" aria-label={`Downloading ${name}`} />
            <Text size="xs" c="dimmed">
              {formatBytes(progress.received)} of {formatBytes(progress.total)} ({percent}%)
            </Text>
          </>
        )}
      </Stack>
    </Center>
  )
}
