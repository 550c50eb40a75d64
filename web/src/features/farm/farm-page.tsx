import { Alert, Center, Grid, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { problemMessage } from '../../api/problem'
import { FarmPrinterCard } from './farm-printer-card'
import { QueuePanel } from './queue-panel'
import type { Printer } from './types'
import { useFleet } from './use-farm'

/**
 * The farm: every printer as a live card (its state drawn by `renderPrinterStatus`, from the
 * printers feature) and the print queue beside it, below it on a narrow screen.
 */
export function FarmPage({ renderPrinterStatus }: { renderPrinterStatus: (printer: Printer) => ReactNode }) {
  const fleet = useFleet()
  const printerName = (id: string) => fleet.data?.find(({ printer }) => printer.id === id)?.printer.name
  return (
    <Stack gap="lg">
      <Stack gap={4}>
        <Title order={1}>Farm</Title>
        <Text size="sm" c="dimmed">
          Live: changes show as they happen while this tab is open.
        </Text>
      </Stack>
      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Stack component="section" aria-labelledby="farm-printers-heading" gap="sm">
            <Title order={2} size="h3" id="farm-printers-heading">
              Printers
            </Title>
            {fleet.isPending && (
              <Center h={120}>
                <Loader aria-label="Loading the printers" />
              </Center>
            )}
            {fleet.isError && (
              <Alert color="red" role="alert" title="The printers could not be loaded">
                {problemMessage(fleet.error)}
              </Alert>
            )}
            {fleet.data?.length === 0 && (
              <Text size="sm" c="dimmed">
                No printers yet: an admin adds them on the Printers page.
              </Text>
            )}
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              {fleet.data?.map((entry) => (
                <FarmPrinterCard key={entry.printer.id} fleetPrinter={entry} renderStatus={renderPrinterStatus} />
              ))}
            </SimpleGrid>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <QueuePanel printerName={printerName} />
        </Grid.Col>
      </Grid>
    </Stack>
  )
}
