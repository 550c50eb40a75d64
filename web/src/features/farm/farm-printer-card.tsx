import { Alert, Anchor, Badge, Button, Group, Paper, Stack, Text, Title } from '@mantine/core'
import { IconTags } from '@tabler/icons-react'
import { type ReactNode, useState } from 'react'
import { Link } from 'react-router'
import { problemMessage } from '../../api/problem'
import { ClearingStatus } from './clearing-status'
import { EditFarmPrinterModal } from './edit-farm-printer-modal'
import type { FleetPrinter, Printer } from './types'
import { useReleasePrinter } from './use-farm'

function Tags({ label, values, empty }: { label: string; values: string[]; empty: string }) {
  return (
    <Group gap={6} style={{ rowGap: 4 }}>
      <Text size="sm" c="dimmed">
        {label}:
      </Text>
      {values.length === 0 ? (
        <Text size="sm">{empty}</Text>
      ) : (
        values.map((value) => (
          <Badge key={value} variant="outline" style={{ textTransform: 'none' }}>
            {value}
          </Badge>
        ))
      )}
    </Group>
  )
}

/**
 * One printer on the farm: its live state (what `renderStatus` draws: state, job, progress, time
 * left, temperatures, the pause, resume and cancel buttons, the bed-clear button), its groups and loaded filament with a button to
 * change them, and its hold after a failed print with the reason and a Release button.
 */
export function FarmPrinterCard(props: { fleetPrinter: FleetPrinter; renderStatus: (printer: Printer) => ReactNode }) {
  const { printer, farm } = props.fleetPrinter
  const release = useReleasePrinter(printer.id)
  const [editing, setEditing] = useState(false)
  return (
    <Paper withBorder p="md" component="article" aria-label={printer.name}>
      <Stack gap="sm">
        <Title order={3} size="h4" style={{ overflowWrap: 'anywhere' }}>
          <Anchor component={Link} to={`/printers/${printer.id}`} inherit>
            {printer.name}
          </Anchor>
        </Title>
        {props.renderStatus(printer)}
        {farm && <ClearingStatus farm={farm} />}
        {farm?.held && (
          <Alert color="orange" title="Held by the queue" role="status">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">{farm.held_reason ?? 'A queued job failed on it.'}</Text>
              <Text size="xs">Once released, the queue feeds it again after its bed is confirmed clear.</Text>
              <Button
                size="xs"
                variant="default"
                loading={release.isPending}
                onClick={() => release.mutate()}
                aria-label={`Release ${printer.name}`}
              >
                Release
              </Button>
              {release.isError && (
                <Text size="sm" c="red" role="alert">
                  {problemMessage(release.error)}
                </Text>
              )}
            </Stack>
          </Alert>
        )}
        {farm && (
          <Stack gap={6}>
            <Tags label="Groups" values={farm.groups} empty="none" />
            <Tags label="Filament" values={farm.loaded_filaments} empty="not set" />
            <Text size="sm" c="dimmed">
              Bed cleared{' '}
              {farm.bed_clearing.by === 'script' ? `by script below ${farm.bed_clearing.below_c} °C` : 'by a person'}
            </Text>
            <Button
              size="xs"
              variant="default"
              leftSection={<IconTags size={14} aria-hidden />}
              onClick={() => setEditing(true)}
              aria-label={`Groups and filament of ${printer.name}`}
              style={{ alignSelf: 'flex-start' }}
            >
              Groups and filament
            </Button>
          </Stack>
        )}
      </Stack>
      {editing && farm && <EditFarmPrinterModal name={printer.name} farm={farm} onClose={() => setEditing(false)} />}
    </Paper>
  )
}
