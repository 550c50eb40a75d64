import { Alert, Badge, Loader, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import type { Dispatch } from './types'
import { useDispatches } from './use-printers'

const outcomeColors: Record<Dispatch['outcome'], string> = {
  confirmed: 'green',
  uploaded: 'teal',
  refused: 'gray',
  not_ready_after_upload: 'yellow',
  upload_failed: 'red',
  start_refused: 'red',
  not_confirmed: 'orange',
  preparing: 'blue',
}

/** What was sent to this printer, newest first, with each send's outcome as recorded. */
export function DispatchHistory({ printerId }: { printerId: string }) {
  const dispatches = useDispatches(printerId)
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="printer-dispatches">
      <Stack gap="sm">
        <Title order={2} size="h3" id="printer-dispatches">
          Dispatch history
        </Title>
        {dispatches.isPending && <Loader size="sm" aria-label="Loading the dispatches" />}
        {dispatches.isError && (
          <Alert color="red" role="alert">
            {problemMessage(dispatches.error)}
          </Alert>
        )}
        {dispatches.data?.length === 0 && <Text c="dimmed">Nothing was sent to this printer yet.</Text>}
        {dispatches.data && dispatches.data.length > 0 && (
          <Table aria-label="Dispatches" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>File and time</Table.Th>
                <Table.Th>Outcome</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {dispatches.data.map((dispatch) => (
                <Table.Tr key={dispatch.id}>
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {dispatch.file_name}
                    </Text>
                    <Text size="xs" c="dimmed">
                      {new Date(dispatch.created_at).toLocaleString()}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <Badge color={outcomeColors[dispatch.outcome]} variant="light">
                      {dispatch.outcome.replaceAll('_', ' ')}
                    </Badge>
                    <Text size="sm">{dispatch.detail}</Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Paper>
  )
}
