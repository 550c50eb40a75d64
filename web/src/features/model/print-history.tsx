import { Alert, Anchor, Loader, Stack, Table, Text, Title } from '@mantine/core'
import { Link } from 'react-router'
import { problemMessage } from '../../api/problem'
import { DispatchOutcomeBadge } from '../../ui/dispatch-outcome-badge'
import { usePrintHistory } from './use-print-history'

/** Every send of the model's files to a printer, newest first: file, printer (a link), time and outcome. */
export function PrintHistory({ modelId }: { modelId: string }) {
  const history = usePrintHistory(modelId)
  return (
    <Stack gap="sm" component="section" aria-labelledby="model-print-history">
      <Title order={2} size="h3" id="model-print-history">
        Print history
      </Title>
      {history.isPending && <Loader size="sm" aria-label="Loading the print history" />}
      {history.isError && (
        <Alert color="red" role="alert">
          {problemMessage(history.error)}
        </Alert>
      )}
      {history.data?.length === 0 && <Text c="dimmed">No file of this model was sent to a printer yet.</Text>}
      {history.data && history.data.length > 0 && (
        <Table aria-label="Print history" verticalSpacing="xs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>File and printer</Table.Th>
              <Table.Th>Outcome</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {history.data.map((dispatch) => (
              <Table.Tr key={dispatch.id}>
                <Table.Td style={{ verticalAlign: 'top' }}>
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    {dispatch.file_name}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {dispatch.printer_id ? (
                      <Anchor component={Link} to={`/printers/${dispatch.printer_id}`} size="xs" underline="always">
                        {dispatch.printer_name}
                      </Anchor>
                    ) : (
                      `${dispatch.printer_name} (removed)`
                    )}{' '}
                    · {new Date(dispatch.created_at).toLocaleString()}
                  </Text>
                </Table.Td>
                <Table.Td style={{ verticalAlign: 'top' }}>
                  <DispatchOutcomeBadge outcome={dispatch.outcome} />
                  <Text size="xs">{dispatch.detail}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  )
}
