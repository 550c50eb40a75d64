import { Badge, Box, Card, Group, Stack, Text, VisuallyHidden } from '@mantine/core'
import { memo } from 'react'
import { Link } from 'react-router'
import type { components } from '../../api/schema'
import { formatBytes } from '../../ui/format-bytes'
import { ModelThumbnail } from './model-thumbnail'
import { SelectModelCheckbox } from './select-model-checkbox'
import type { SelectModel } from './use-model-selection'

export type ModelSummary = components['schemas']['ModelSummary']

const shownTags = 3

/**
 * One model in the grid: thumbnail, name, formats, size and tags; the whole card opens the model.
 * Its selection checkbox lies over the thumbnail's corner, beside the card's link (not in it: a
 * control inside a link is unreachable for many assistive tools).
 * Memoised: the grid draws again as pages arrive, rows get measured and the window scrolls, and a
 * model's summary keeps its identity across those (the query cache shares unchanged data).
 */
export const ModelCard = memo(function ModelCard({
  model,
  index,
  selected,
  onSelect,
}: {
  model: ModelSummary
  index: number
  selected: boolean
  onSelect: SelectModel
}) {
  const { file_summary: files } = model
  const analysing = model.analysing_files > 0 && !model.has_thumbnail
  return (
    <Box pos="relative" flex={1} display="flex" style={{ flexDirection: 'column' }}>
      <Box pos="absolute" top={8} left={8} style={{ zIndex: 1 }}>
        <SelectModelCheckbox name={model.name} index={index} checked={selected} onSelect={onSelect} />
      </Box>
      <Card
        component={Link}
        to={`/models/${model.id}`}
        // Cards are not Mantine buttons: this class gives them the theme's keyboard focus ring.
        className="mantine-focus-auto"
        withBorder
        padding="sm"
        radius="md"
        flex={1}
      >
        {/* Hidden from assistive tools: the link is named by its text, the model's name first (the
            thumbnail is decorative; that it is still being rendered is said after the figures). */}
        <Card.Section aria-hidden>
          <ModelThumbnail id={model.id} hasThumbnail={model.has_thumbnail} analysing={analysing} />
        </Card.Section>
        <Stack gap={6} mt="sm">
          <Text fw={600} lineClamp={2}>
            {model.name}
          </Text>
          <Group gap={4}>
            {files.formats.map((format) => (
              <Badge key={format} size="sm" variant="light">
                {format}
              </Badge>
            ))}
          </Group>
          <Text size="xs" c="dimmed">
            {formatBytes(files.total_size)} · {files.count} {files.count === 1 ? 'file' : 'files'}
            {analysing && <VisuallyHidden> · thumbnail being rendered</VisuallyHidden>}
          </Text>
          {model.tags.length > 0 && (
            <Group gap={4}>
              {model.tags.slice(0, shownTags).map((tag) => (
                <Badge key={tag} size="xs" variant="outline" color="gray">
                  {tag}
                </Badge>
              ))}
              {model.tags.length > shownTags && (
                <Text size="xs" c="dimmed">
                  +{model.tags.length - shownTags}
                </Text>
              )}
            </Group>
          )}
        </Stack>
      </Card>
    </Box>
  )
})
