import { Anchor, Badge, Group, Table, Text, VisuallyHidden } from '@mantine/core'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { memo, useRef } from 'react'
import { Link } from 'react-router'
import { formatBytes } from '../../ui/format-bytes'
import { usePageTop } from '../../ui/use-page-top'
import type { ModelSummary } from './model-card'
import { ModelThumbnail } from './model-thumbnail'
import { SelectModelCheckbox } from './select-model-checkbox'
import type { ModelListProps, SelectModel } from './use-model-selection'

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' })
const columnCount = 7
/** A row with its square thumbnail; rows are measured once drawn. */
const estimatedRowHeight = 73

/**
 * The list view: one row per model, for scanning many at once. Virtualised like the grid: only the
 * rows near the window's scroll position are in the table, between two spacer rows as tall as the
 * rows left out, so the table keeps its columns and the page its full height; `aria-rowindex`
 * tells screen readers where each drawn row sits.
 */
export function ModelTable({ models, complete, isSelected, onSelect }: ModelListProps) {
  const bodyRef = useRef<HTMLTableSectionElement>(null)
  const scrollMargin = usePageTop(bodyRef)
  const virtualizer = useWindowVirtualizer({
    count: models.length,
    estimateSize: () => estimatedRowHeight,
    overscan: 8,
    scrollMargin,
  })
  const rows = virtualizer.getVirtualItems()
  const first = rows[0]
  const last = rows.at(-1)
  const spaceBefore = first ? first.start - scrollMargin : 0
  const spaceAfter = last ? virtualizer.getTotalSize() - (last.end - scrollMargin) : 0

  return (
    <Table.ScrollContainer minWidth={640}>
      <Table verticalSpacing="xs" highlightOnHover aria-rowcount={complete ? models.length + 1 : -1}>
        <Table.Thead>
          <Table.Tr aria-rowindex={1}>
            <Table.Th w={40}>
              <VisuallyHidden>Selected</VisuallyHidden>
            </Table.Th>
            <Table.Th w={72}>
              <VisuallyHidden>Thumbnail</VisuallyHidden>
            </Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Formats</Table.Th>
            {/* Fixed widths: the drawn rows change while scrolling, and the columns must not move with them. */}
            <Table.Th w={96}>Size</Table.Th>
            <Table.Th>Tags</Table.Th>
            <Table.Th w={128}>Changed</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody ref={bodyRef}>
          {spaceBefore > 0 && <SpacerRow height={spaceBefore} />}
          {rows.map((row) => {
            const model = models[row.index]
            return (
              model && (
                <ModelRow
                  key={model.id}
                  model={model}
                  index={row.index}
                  selected={isSelected(model.id)}
                  onSelect={onSelect}
                  measureRef={virtualizer.measureElement}
                />
              )
            )
          })}
          {spaceAfter > 0 && <SpacerRow height={spaceAfter} />}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}

function SpacerRow({ height }: { height: number }) {
  return (
    <tr aria-hidden style={{ height }}>
      <td colSpan={columnCount} style={{ padding: 0, border: 0 }} />
    </tr>
  )
}

/** Memoised for the same reason as the grid's cards: the table draws again on every scroll step. */
const ModelRow = memo(function ModelRow({
  model,
  index,
  selected,
  onSelect,
  measureRef,
}: {
  model: ModelSummary
  index: number
  selected: boolean
  onSelect: SelectModel
  measureRef: (element: HTMLTableRowElement | null) => void
}) {
  return (
    <Table.Tr ref={measureRef} data-index={index} aria-rowindex={index + 2}>
      <Table.Td>
        <SelectModelCheckbox name={model.name} index={index} checked={selected} onSelect={onSelect} />
      </Table.Td>
      <Table.Td>
        <ModelThumbnail
          id={model.id}
          hasThumbnail={model.has_thumbnail}
          analysing={model.analysing_files > 0 && !model.has_thumbnail}
          ratio={1}
        />
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
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatBytes(model.file_summary.total_size)}</Table.Td>
      <Table.Td>
        <Text size="sm" lineClamp={1}>
          {model.tags.join(', ')}
        </Text>
      </Table.Td>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>{dateFormat.format(new Date(model.updated_at))}</Table.Td>
    </Table.Tr>
  )
})
