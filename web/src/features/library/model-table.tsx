import { Anchor, Badge, Group, Table, Text, VisuallyHidden } from '@mantine/core'
import { Link } from 'react-router'
import { formatBytes } from '../../ui/format-bytes'
import type { ModelSummary } from './model-card'
import { ModelThumbnail } from './model-thumbnail'

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })

/** The list view: one row per model, for scanning many at once. */
export function ModelTable({ models }: { models: ModelSummary[] }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table verticalSpacing="xs" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={72}>
              <VisuallyHidden>Thumbnail</VisuallyHidden>
            </Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Formats</Table.Th>
            <Table.Th>Size</Table.Th>
            <Table.Th>Tags</Table.Th>
            <Table.Th>Changed</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {models.map((model) => (
            <Table.Tr key={model.id}>
              <Table.Td>
                <ModelThumbnail id={model.id} hasThumbnail={model.has_thumbnail} ratio={1} />
              </Table.Td>
              <Table.Td>
                <Anchor component={Link} to={`/models/${model.id}`} fw={600}>
                  {model.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {model.file_summary.formats.map((format) => (
                    <Badge key={format} size="sm" variant="light">
                      {format}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
              <Table.Td>{formatBytes(model.file_summary.total_size)}</Table.Td>
              <Table.Td>
                <Text size="sm" lineClamp={1}>
                  {model.tags.join(', ')}
                </Text>
              </Table.Td>
              <Table.Td>{dateFormat.format(new Date(model.updated_at))}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}
