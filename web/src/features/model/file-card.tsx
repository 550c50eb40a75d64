import { Alert, Badge, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { DownloadButton } from './download-button'
import { fileFacts } from './file-facts'
import { OpenInSlicerMenu } from './open-in-slicer-menu'
import { ThumbnailImage } from './thumbnail-image'
import type { ModelFile } from './types'

/** One file of the model: its name and format, what the vault read from it, and its actions. */
export function FileCard({ file, actions }: { file: ModelFile; actions?: ReactNode }) {
  return (
    <Paper withBorder p="md" component="article" aria-label={file.name}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" gap="xs">
          <Group gap="xs" wrap="nowrap" miw={0} style={{ flex: 1 }}>
            <Badge variant="light" style={{ flexShrink: 0 }}>
              {file.format.toUpperCase()}
            </Badge>
            <Title order={3} size="h5" style={{ overflowWrap: 'anywhere' }}>
              {file.name}
            </Title>
          </Group>
          <Group gap="xs">
            <DownloadButton file={file} />
            <OpenInSlicerMenu file={file} />
            {actions}
          </Group>
        </Group>
        <Group align="flex-start" gap="md" wrap="nowrap">
          {file.has_thumbnail && (
            <ThumbnailImage kind="files" id={file.id} available alt={`Thumbnail of ${file.name}`} size={96} />
          )}
          <SimpleGrid
            component="dl"
            cols={{ base: 1, xs: 2, md: 3 }}
            spacing="xs"
            verticalSpacing={6}
            m={0}
            style={{ flex: 1 }}
          >
            {fileFacts(file).map((fact) => (
              <div key={fact.label}>
                <Text component="dt" size="xs" c="dimmed">
                  {fact.label}
                </Text>
                <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>
                  {fact.value}
                </Text>
              </div>
            ))}
          </SimpleGrid>
        </Group>
        {file.parse_warnings.length > 0 && (
          <Alert color="yellow" variant="light" title="Not everything could be read">
            {file.parse_warnings.join(' ')}
          </Alert>
        )}
      </Stack>
    </Paper>
  )
}
