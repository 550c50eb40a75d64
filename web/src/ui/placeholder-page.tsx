import { Alert, Stack, Title } from '@mantine/core'

/** A page of the navigation that is not built yet: says so, rather than a blank screen. */
export function PlaceholderPage({ title }: { title: string }) {
  return (
    <Stack>
      <Title order={1}>{title}</Title>
      <Alert variant="light" title="Not here yet">
        This page is still being built. The API already offers it: see the API reference under /docs.
      </Alert>
    </Stack>
  )
}
