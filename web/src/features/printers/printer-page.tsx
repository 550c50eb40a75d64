import { Alert, Anchor, Badge, Button, Center, Grid, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core'
import { IconSend } from '@tabler/icons-react'
import { useState } from 'react'
import { Link, useParams } from 'react-router'
import { ApiError, problemMessage } from '../../api/problem'
import { useIsAdmin } from '../../api/use-me'
import { PrintRunsSection } from '../../ui/print-runs/print-runs-section'
import { BedClearButton } from './bed-clear-button'
import { DiagnosticsPanel } from './diagnostics-panel'
import { DispatchHistory } from './dispatch-history'
import { EditPrinterButton } from './edit-printer-button'
import { PrintControls } from './print-controls'
import { PrinterLiveStatus } from './printer-live-status'
import { ProviderBadge } from './provider-badge'
import { RemovePrinterButton } from './remove-printer-button'
import { SendDialog } from './send-dialog'
import { usePrinter } from './use-printers'

/** One printer: live state, "Send a file", diagnostics, dispatch history; edit and remove for admins. */
export function PrinterPage() {
  const { id = '' } = useParams()
  const printer = usePrinter(id)
  const isAdmin = useIsAdmin()
  const [sending, setSending] = useState(false)

  if (printer.isPending) {
    return (
      <Center h={200}>
        <Loader aria-label="Loading the printer" />
      </Center>
    )
  }
  if (printer.isError) {
    const missing = printer.error instanceof ApiError && printer.error.status === 404
    return (
      <Stack>
        <Title order={1}>{missing ? 'Printer not found' : 'The printer could not be loaded'}</Title>
        <Alert color={missing ? 'yellow' : 'red'} role="alert">
          {missing ? 'There is no printer with this address; it may have been removed.' : problemMessage(printer.error)}
        </Alert>
        <Anchor component={Link} to="/printers">
          Back to the printers
        </Anchor>
      </Stack>
    )
  }

  const { data } = printer
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" gap="sm">
        <Stack gap={4} miw={0} style={{ flex: '1 1 240px' }}>
          <Anchor component={Link} to="/printers" size="sm">
            ← Printers
          </Anchor>
          <Title order={1} style={{ overflowWrap: 'anywhere' }}>
            {data.name}
          </Title>
          <Group gap={6}>
            <ProviderBadge provider={data.provider} />
            <Text size="sm" c="dimmed" style={{ overflowWrap: 'anywhere' }}>
              {data.address}
            </Text>
            {data.has_credentials && (
              <Badge variant="light" color="gray">
                credentials stored
              </Badge>
            )}
          </Group>
        </Stack>
        <Group gap="xs">
          <Button leftSection={<IconSend size={16} aria-hidden />} onClick={() => setSending(true)}>
            Send a file
          </Button>
          {isAdmin && <EditPrinterButton printer={data} />}
          {isAdmin && <RemovePrinterButton printer={data} />}
        </Group>
      </Group>
      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Paper withBorder p="md" component="section" aria-labelledby="printer-live">
            <Stack gap="sm">
              <Title order={2} size="h3" id="printer-live">
                Now
              </Title>
              <PrinterLiveStatus name={data.name} status={data.status} />
              <PrintControls printer={data} />
              <BedClearButton printer={data} />
            </Stack>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <DiagnosticsPanel printerId={data.id} />
        </Grid.Col>
      </Grid>
      <Paper withBorder p="md">
        <PrintRunsSection owner={{ kind: 'printers', id: data.id }} />
      </Paper>
      <DispatchHistory printerId={data.id} />
      {sending && <SendDialog opened printerId={data.id} onClose={() => setSending(false)} />}
    </Stack>
  )
}
