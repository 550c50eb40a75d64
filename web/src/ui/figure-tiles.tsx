import { Paper, SimpleGrid, Text } from '@mantine/core'

export interface FigureTile {
  label: string
  value: string
  /** A line under the figure that says what it counts or why it is missing. */
  note?: string
}

/** Headline figures as a description list, one bordered tile each: four across, two on a phone. */
export function FigureTiles({ tiles }: { tiles: FigureTile[] }) {
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }} component="dl" m={0}>
      {tiles.map((tile) => (
        <Paper key={tile.label} withBorder p="md">
          <Text component="dt" size="sm" c="dimmed">
            {tile.label}
          </Text>
          <Text component="dd" m={0} fz={28} fw={700} lh={1.2}>
            {tile.value}
          </Text>
          {tile.note && (
            <Text component="dd" m={0} size="xs" c="dimmed">
              {tile.note}
            </Text>
          )}
        </Paper>
      ))}
    </SimpleGrid>
  )
}
