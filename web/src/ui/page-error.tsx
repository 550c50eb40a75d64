import { Alert, Button, Code, Group, Stack, Text, Title } from '@mantine/core'
import type { FallbackProps } from 'react-error-boundary'
import { isStaleChunk } from './stale-chunk'

/**
 * What a page that failed shows instead of a white screen: after an upgrade (its code is gone
 * from the server) a reload fetches the new version; any other failure says what broke and
 * offers to try the page again. The navigation around it keeps working.
 */
export function PageError({ error, resetErrorBoundary }: FallbackProps) {
  const stale = isStaleChunk(error)
  const message = error instanceof Error ? error.message : String(error)
  return (
    <Stack maw={640} py="md">
      <Title order={1}>{stale ? 'The vault was updated' : 'This page failed'}</Title>
      <Alert color={stale ? 'blue' : 'red'} role="alert" title={stale ? 'Reload to continue' : 'Something broke'}>
        <Stack gap="xs">
          <Text size="sm">
            {stale
              ? 'This page could not load its code: the vault was probably upgraded since this tab opened, or the connection dropped. Reloading fetches the current version; nothing you stored is affected.'
              : 'The page hit an error it could not recover from. Nothing you stored is affected. Try the page again, or reload.'}
          </Text>
          {!stale && <Code block>{message}</Code>}
        </Stack>
      </Alert>
      <Group>
        <Button onClick={() => window.location.reload()}>Reload</Button>
        {!stale && (
          <Button variant="default" onClick={resetErrorBoundary}>
            Try again
          </Button>
        )}
      </Group>
    </Stack>
  )
}
