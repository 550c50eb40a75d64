import { Alert, Button, Group, Loader, Stack, Table, Text, Title } from '@mantine/core'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { saveBlob } from '../save-blob'
import { summaryText } from './format'
import { PrintRunRow } from './print-run-row'
import { fetchRunsCsv, type RunOwner, usePrintRuns } from './use-print-runs'

/**
 * A model's or a printer's print history: the success rate and filament of all its runs, an
 * Export CSV button, and the newest runs, each with its outcome, verdict, note and photo.
 */
export function PrintRunsSection({ owner }: { owner: RunOwner }) {
  const runs = usePrintRuns(owner)
  const [exportError, setExportError] = useState<unknown>(null)
  const headingId = `${owner.kind}-print-history`
  const exportCsv = async () => {
    setExportError(null)
    try {
      saveBlob(await fetchRunsCsv(owner), `print-history-${owner.kind === 'models' ? 'model' : 'printer'}.csv`)
    } catch (error) {
      setExportError(error)
    }
  }
  return (
    <Stack gap="sm" component="section" aria-labelledby={headingId}>
      <Group justify="space-between" align="center">
        <Title order={2} size="h3" id={headingId}>
          Print history
        </Title>
        {runs.data && runs.data.summary.runs > 0 && (
          <Button variant="default" size="xs" onClick={exportCsv}>
            Export CSV
          </Button>
        )}
      </Group>
      {runs.isPending && <Loader size="sm" aria-label="Loading the print history" />}
      {(runs.isError || exportError !== null) && (
        <Alert color="red" role="alert">
          {problemMessage(runs.error ?? exportError)}
        </Alert>
      )}
      {runs.data?.summary.runs === 0 && (
        <Text c="dimmed">
          {owner.kind === 'models' ? 'No file of this model was printed yet.' : 'Nothing was printed here yet.'}
        </Text>
      )}
      {runs.data && runs.data.summary.runs > 0 && (
        <>
          <Text size="sm">{summaryText(runs.data.summary)}</Text>
          <Table aria-label="Print history" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{owner.kind === 'models' ? 'File and printer' : 'File and time'}</Table.Th>
                <Table.Th>Outcome</Table.Th>
                <Table.Th>Filament</Table.Th>
                <Table.Th>Review</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {runs.data.items.map((run) => (
                <PrintRunRow key={run.id} run={run} linkTo={owner.kind === 'models' ? 'printer' : 'model'} />
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  )
}
