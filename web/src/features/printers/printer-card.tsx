import { Anchor, Group, Paper, Stack, Title } from '@mantine/core'
import { Link } from 'react-router'
import { BedClearButton } from './bed-clear-button'
import { PrinterLiveStatus } from './printer-live-status'
import { ProviderBadge } from './provider-badge'
import type { Printer } from './types'

/** One printer on the dashboard: its name (a link to its page), provider and live state. */
export function PrinterCard({ printer }: { printer: Printer }) {
  return (
    <Paper withBorder p="md" component="article" aria-label={printer.name}>
      <Stack gap="sm">
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Title order={2} size="h4" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
            <Anchor component={Link} to={`/printers/${printer.id}`} inherit>
              {printer.name}
            </Anchor>
          </Title>
          <ProviderBadge provider={printer.provider} />
        </Group>
        <PrinterLiveStatus name={printer.name} status={printer.status} />
        <BedClearButton printer={printer} />
      </Stack>
    </Paper>
  )
}
