import { Stack, Title } from '@mantine/core'

/** The library: model cards with search, filters and sort. */
export function LibraryPage() {
  return (
    <Stack>
      <Title order={1}>Library</Title>
    </Stack>
  )
}
