import { Alert, Group, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { ComponentHealthCard } from './component-health-card'
import { FirstBackupHint, isNewInstallBackup } from './first-backup-hint'
import type { HealthReport } from './use-health'
import { useHealth } from './use-health'

const componentInfo: { key: keyof HealthReport['components']; title: string; purpose: string }[] = [
  { key: 'database', title: 'Database', purpose: 'Models, files, tags and accounts.' },
  { key: 'storage', title: 'Storage', purpose: 'The files themselves and their thumbnails.' },
  { key: 'backup', title: 'Backup', purpose: 'The backup destination and the age of the last backup.' },
  { key: 'printer-provider', title: 'Printers', purpose: 'Whether the registered printers answer.' },
]

const overallText: Record<HealthReport['status'], string> = {
  pass: 'Everything is working.',
  warn: 'The vault works, but something needs attention.',
  fail: 'A required part of the vault is down.',
}

/** What a new install reports before its first backup: a warning that is no fault. */
const newInstallText = 'The vault works. Its one warning, no backup yet, is expected on a new install.'

/** The health of the vault's four components, refreshed while the page is open. */
export function HealthPanel() {
  const health = useHealth()
  return (
    <Stack gap="sm">
      <Title order={2} size="h3">
        Health
      </Title>
      {health.isPending && <Loader size="sm" aria-label="Checking health" />}
      {health.isError && (
        <Alert color="red" role="alert" title="Health unknown">
          {problemMessage(health.error)}
        </Alert>
      )}
      {health.data && (
        <>
          <Group gap="xs">
            <Text size="sm">
              {onlyFirstBackupMissing(health.data) ? newInstallText : overallText[health.data.status]}
            </Text>
            <Text size="xs" c="dimmed">
              Checked {new Date(health.data.checked_at).toLocaleTimeString()} · version {health.data.service.version}
            </Text>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
            {componentInfo.map((info) => (
              <ComponentHealthCard
                key={info.key}
                title={info.title}
                purpose={info.purpose}
                health={health.data.components[info.key]}
              >
                {info.key === 'backup' && isNewInstallBackup(health.data.components.backup) && <FirstBackupHint />}
              </ComponentHealthCard>
            ))}
          </SimpleGrid>
        </>
      )}
    </Stack>
  )
}

/** Whether the report's only warning is the first backup that was never made. */
const onlyFirstBackupMissing = (report: HealthReport) =>
  isNewInstallBackup(report.components.backup) &&
  Object.entries(report.components).every(([name, component]) => name === 'backup' || component.status === 'pass')
