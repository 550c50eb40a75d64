import { Alert, Badge, Button, Group, Loader, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core'
import { IconRefresh } from '@tabler/icons-react'
import { problemMessage } from '../../api/problem'
import type { PrinterDiagnostics } from './types'
import { useDiagnostics } from './use-printers'

const resultColors = { pass: 'green', warn: 'yellow', fail: 'red' } as const
const yesNo = (value: boolean | null) => (value === null ? 'not applicable' : value ? 'yes' : 'no')

function facts(diagnosis: PrinterDiagnostics) {
  const { identity, capabilities } = diagnosis
  return [
    { label: 'Reachable', value: yesNo(diagnosis.reachable) },
    { label: 'Authenticated', value: yesNo(diagnosis.authenticated) },
    { label: 'Firmware link', value: yesNo(diagnosis.firmware_link) },
    { label: 'Latency', value: diagnosis.latency_ms === null ? '—' : `${Math.round(diagnosis.latency_ms)} ms` },
    {
      label: 'Software',
      value: [identity.software, identity.version].filter(Boolean).join(' ') || '—',
    },
    { label: 'Host', value: identity.hostname ?? '—' },
    {
      label: 'Can',
      value: [capabilities.upload && 'upload', capabilities.start && 'start'].filter(Boolean).join(', ') || 'nothing',
    },
    { label: 'Accepts', value: capabilities.accepted_extensions.join(', ') || '—' },
  ]
}

/** Why the printer is or is not ready: the vault asks it afresh (reachability, identity, checks). */
export function DiagnosticsPanel({ printerId }: { printerId: string }) {
  const diagnostics = useDiagnostics(printerId)
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="printer-diagnostics">
      <Stack gap="sm">
        <Group justify="space-between" gap="xs">
          <Title order={2} size="h3" id="printer-diagnostics">
            Diagnostics
          </Title>
          <Button
            variant="default"
            size="xs"
            leftSection={<IconRefresh size={14} aria-hidden />}
            onClick={() => diagnostics.refetch()}
            loading={diagnostics.isFetching}
          >
            Check again
          </Button>
        </Group>
        {diagnostics.isPending && <Loader size="sm" aria-label="Asking the printer" />}
        {diagnostics.isError && (
          <Alert color="red" role="alert">
            {problemMessage(diagnostics.error)}
          </Alert>
        )}
        {diagnostics.data && (
          <>
            <SimpleGrid component="dl" cols={{ base: 2, sm: 4 }} spacing="xs" verticalSpacing={6} m={0}>
              {facts(diagnostics.data).map((fact) => (
                <div key={fact.label}>
                  <Text component="dt" size="xs" c="dimmed">
                    {fact.label}
                  </Text>
                  <Text component="dd" size="sm" m={0} style={{ overflowWrap: 'anywhere' }}>
                    {fact.value}
                  </Text>
                </div>
              ))}
            </SimpleGrid>
            <Table aria-label="Diagnostic checks" verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Check</Table.Th>
                  <Table.Th>Result</Table.Th>
                  <Table.Th>Detail</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {diagnostics.data.checks.map((check) => (
                  <Table.Tr key={check.name}>
                    <Table.Td>{check.name}</Table.Td>
                    <Table.Td>
                      {/* A table cell shrinks to its content's minimum; a badge would be cut to "P…". */}
                      <Badge color={resultColors[check.result]} variant="light" style={{ minWidth: 'max-content' }}>
                        {check.result}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{check.detail}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            <Text size="xs" c="dimmed">
              Checked {new Date(diagnostics.data.checked_at).toLocaleString()}
            </Text>
          </>
        )}
      </Stack>
    </Paper>
  )
}
