import { Alert, Anchor, Loader, Paper, Stack, Table, Text, Title } from '@mantine/core'
import { Link } from 'react-router'
import { problemMessage } from '../../api/problem'
import { DispatchOutcomeBadge } from '../../ui/dispatch-outcome-badge'
import { useDispatches } from './use-printers'

/** What was sent to this printer, newest first, with each send's outcome as recorded; each file links to its model. */
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
                    {/* The file's model, while it has one: the print history links both ways. */}
                    {dispatch.model_id ? (
                      <Anchor
                        component={Link}
                        to={`/models/${dispatch.model_id}`}
                        size="sm"
                        style={{ overflowWrap: 'anywhere' }}
                      >
                        {dispatch.file_name}
                      </Anchor>
                    ) : (
                      <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                        {dispatch.file_name}
                      </Text>
                    )}
                    <Text size="xs" c="dimmed">
                      {new Date(dispatch.created_at).toLocaleString()}
                    </Text>
                  </Table.Td>
                  <Table.Td style={{ verticalAlign: 'top' }}>
                    <DispatchOutcomeBadge outcome={dispatch.outcome} />
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
