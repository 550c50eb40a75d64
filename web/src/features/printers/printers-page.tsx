import { Alert, Center, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { useIsAdmin } from '../../api/use-me'
import { AddPrinterButton } from './add-printer-button'
import { PrinterCard } from './printer-card'
import { usePrinters } from './use-printers'

/** The dashboard: every printer with its live state, kept fresh by live events (or polling without them). */
export function PrintersPage() {
  const printers = usePrinters()
  const isAdmin = useIsAdmin()
  return (
    <Stack gap="lg">
      <Group justify="space-between" gap="sm">
        <Title order={1}>Printers</Title>
        {isAdmin && <AddPrinterButton />}
      </Group>
      {printers.isPending && (
        <Center h={160}>
          <Loader aria-label="Loading the printers" />
        </Center>
      )}
      {printers.isError && (
        <Alert color="red" role="alert" title="The printers could not be loaded">
          {problemMessage(printers.error)}
        </Alert>
      )}
      {printers.data?.length === 0 && (
        <Alert variant="light" title="No printers yet">
          {isAdmin
            ? 'Add one with "Add printer": Moonraker (Klipper), OctoPrint or PrusaLink by address, or a virtual printer (address virtual://bench) to try the whole flow without hardware.'
            : 'An admin adds printers here; then their live state shows on this page.'}
        </Alert>
      )}
      {printers.data && printers.data.length > 0 && (
        <>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }}>
            {printers.data.map((printer) => (
              <PrinterCard key={printer.id} printer={printer} />
            ))}
          </SimpleGrid>
          <Text size="xs" c="dimmed">
            Live: changes show as they happen while this tab is open.
          </Text>
        </>
      )}
    </Stack>
  )
}
