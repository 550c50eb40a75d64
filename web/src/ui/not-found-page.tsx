import { Alert, Anchor, Stack, Title } from '@mantine/core'
import { Link, useLocation } from 'react-router'

/** A path no page answers: says so plainly and offers the way back, rather than a blank screen. */
export function NotFoundPage() {
  const { pathname } = useLocation()
  return (
    <Stack>
      <Title order={1}>Page not found</Title>
      <Alert variant="light" title="No page here">
        The vault has no page at <code>{pathname}</code>; the link may be old or mistyped. Go to the{' '}
        <Anchor component={Link} to="/library" c="inherit" underline="always">
          library
        </Anchor>{' '}
        or the{' '}
        <Anchor component={Link} to="/" c="inherit" underline="always">
          overview
        </Anchor>
        .
      </Alert>
    </Stack>
  )
}
