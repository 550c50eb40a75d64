import { ActionIcon, Anchor, Group, Table, VisuallyHidden } from '@mantine/core'
import { IconPencil, IconTrash } from '@tabler/icons-react'
import { Link } from 'react-router'

/** One row: what it is called, where its name leads (the library filtered by it), and how many models it has. */
export interface NamedCountRow {
  key: string
  name: string
  to: string
  count: number
}

/**
 * A table of named things with their model counts (collections, tags): each name is a link, and
 * each row has a rename and a delete button whose labels say `${noun} ${name}`.
 */
export function NamedCountTable({
  label,
  nameHeader,
  noun,
  rows,
  onRename,
  onDelete,
}: {
  label: string
  nameHeader: string
  /** Prefixes the buttons' labels: "Rename tag cube"; empty for "Rename Benchy". */
  noun: string
  rows: NamedCountRow[]
  onRename: (key: string) => void
  onDelete: (key: string) => void
}) {
  const named = (action: string, name: string) => [action, noun, name].filter(Boolean).join(' ')
  return (
    <Table highlightOnHover verticalSpacing="xs" aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{nameHeader}</Table.Th>
          <Table.Th ta="right">Models</Table.Th>
          <Table.Th>
            <VisuallyHidden>Actions</VisuallyHidden>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={row.key}>
            <Table.Td style={{ wordBreak: 'break-word' }}>
              <Anchor component={Link} to={row.to}>
                {row.name}
              </Anchor>
            </Table.Td>
            <Table.Td ta="right">{row.count}</Table.Td>
            <Table.Td>
              <Group gap={4} justify="flex-end" wrap="nowrap">
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={named('Rename', row.name)}
                  onClick={() => onRename(row.key)}
                >
                  <IconPencil size={16} aria-hidden />
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={named('Delete', row.name)}
                  onClick={() => onDelete(row.key)}
                >
                  <IconTrash size={16} aria-hidden />
                </ActionIcon>
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
}
