import { Group, Paper, Stack, Table, Text, useMatches, VisuallyHidden } from '@mantine/core'
import type { Key, ReactNode } from 'react'

/** One column: its header (`null`: the row's actions, which have no visible header) and what a row shows in it. */
export interface DataColumn<Row> {
  key: string
  header: string | null
  cell: (row: Row) => ReactNode
}

/**
 * Rows as a table on wide screens and as a list of cards below the `sm` breakpoint, where a table
 * would scroll sideways and hide its buttons: each card shows every column as "header: value",
 * and the actions last. The card list keeps the table's accessible name.
 */
export function DataTable<Row>({
  label,
  columns,
  rows,
  rowKey,
}: {
  label: string
  columns: DataColumn<Row>[]
  rows: Row[]
  rowKey: (row: Row) => Key
}) {
  const asCards = useMatches({ base: true, sm: false })
  if (asCards) {
    const fields = columns.filter((column) => column.header !== null)
    const actions = columns.filter((column) => column.header === null)
    return (
      <Stack component="ul" aria-label={label} gap="sm" p={0} m={0} style={{ listStyle: 'none' }}>
        {rows.map((row) => (
          <Paper component="li" key={rowKey(row)} withBorder p="sm">
            <Stack gap={6}>
              {fields.map((column) => (
                <Group key={column.key} justify="space-between" gap="xs" wrap="nowrap" align="flex-start">
                  <Text size="xs" c="dimmed" style={{ flexShrink: 0 }}>
                    {column.header}
                  </Text>
                  <div style={{ minWidth: 0, textAlign: 'right', overflowWrap: 'anywhere' }}>{column.cell(row)}</div>
                </Group>
              ))}
              {actions.map((column) => (
                <Group key={column.key} justify="flex-end">
                  {column.cell(row)}
                </Group>
              ))}
            </Stack>
          </Paper>
        ))}
      </Stack>
    )
  }
  return (
    <Table aria-label={label} verticalSpacing="sm">
      <Table.Thead>
        <Table.Tr>
          {columns.map((column) => (
            <Table.Th key={column.key}>{column.header ?? <VisuallyHidden>Actions</VisuallyHidden>}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => (
          <Table.Tr key={rowKey(row)}>
            {columns.map((column) => (
              <Table.Td key={column.key}>{column.cell(row)}</Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  )
}
