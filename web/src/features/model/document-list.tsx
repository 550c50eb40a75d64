import { Group, Paper, Stack, Text, Title } from '@mantine/core'
import { formatBytes } from '../../ui/format-bytes'
import { DownloadButton } from './download-button'
import type { ModelFile } from './types'

/** The texts that come with the model (README, LICENSE, instructions as PDF…), each to download. */
export function DocumentList({ documents }: { documents: ModelFile[] }) {
  return (
    <Stack gap="sm" component="section" aria-labelledby="model-documents">
      <Title order={2} size="h3" id="model-documents">
        Documents
      </Title>
      <Stack gap="xs" component="ul" m={0} p={0} style={{ listStyle: 'none' }}>
        {documents.map((document) => (
          <Paper key={document.id} withBorder p="sm" component="li">
            <Group justify="space-between" gap="xs">
              <Text style={{ overflowWrap: 'anywhere' }}>{document.name}</Text>
              <Group gap="xs">
                <Text size="sm" c="dimmed">
                  {formatBytes(document.size)}
                </Text>
                <DownloadButton file={document} />
              </Group>
            </Group>
          </Paper>
        ))}
      </Stack>
    </Stack>
  )
}
