import { ActionIcon, Anchor, Group, Table, VisuallyHidden } from '@mantine/core'
import { IconFolderSymlink, IconPencil, IconTrash } from '@tabler/icons-react'
import type { ReactNode } from 'react'
import { Link } from 'react-router'

/** One row: what it is called, where its name leads (the library filtered by it), and how many models it has. */
export interface NamedCountRow {
  key: string
  name: string
  /** How far it is indented: 0 at the top of a tree (and in flat lists). */
  depth?: number
  to: string
  count: number
  /** Shown under the name (a collection's description). */
  details?: ReactNode
  /** Shown before the name (a collection's cover). */
  image?: ReactNode
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
  renameVerb = 'Rename',
  onMove,
  onDelete,
}: {
  label: string
  nameHeader: string
  /** Prefixes the buttons' labels: "Rename tag cube"; empty for "Rename Benchy". */
  noun: string
  rows: NamedCountRow[]
  onRename: (key: string) => void
  /** The pencil's verb: "Rename", or "Edit" where it changes more than the name. */
  renameVerb?: string
  /** Given, each row also has a move button. */
  onMove?: (key: string) => void
  onDelete: (key: string) => void
}) {
  const named = (action: string, name: string) => [action, noun, name].filter(Boolean).join(' ')
  const actions = [
    { verb: renameVerb, color: 'gray', Icon: IconPencil, run: onRename },
    ...(onMove ? [{ verb: 'Move', color: 'gray', Icon: IconFolderSymlink, run: onMove }] : []),
    { verb: 'Delete', color: 'red', Icon: IconTrash, run: onDelete },
  ]
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
            <Table.Td
              style={{
                wordBreak: 'break-word',
                paddingLeft: `calc(var(--mantine-spacing-xs) + ${(row.depth ?? 0) * 0.75}rem)`,
              }}
            >
              <Group gap="sm" wrap="nowrap" align="flex-start">
                {row.image}
                <div>
                  <Anchor component={Link} to={row.to}>
                    {row.name}
                  </Anchor>
                  {row.details}
                </div>
              </Group>
            </Table.Td>
            <Table.Td ta="right">{row.count}</Table.Td>
            <Table.Td>
              <Group gap={4} justify="flex-end" wrap="nowrap">
                {actions.map(({ verb, color, Icon, run }) => (
                  <ActionIcon
                    key={verb}
                    variant="subtle"
                    color={color}
                    aria-label={named(verb, row.name)}
                    onClick={() => run(row.key)}
                  >
                    <Icon size={16} aria-hidden />
                  </ActionIcon>
                ))}
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
}
