import { Card, Code, SimpleGrid, Stack, Text, Title } from '@mantine/core'
import type { BackupDestination } from './use-backups'

/** Where backups go and how long they stay, as configured on the vault (read-only here). */
export function DestinationCard({ destination }: { destination: BackupDestination }) {
  const retention =
    destination.retention_days === 0
      ? 'Kept forever (VAULT_BACKUP_RETENTION_DAYS is 0).'
      : `Archives older than ${destination.retention_days} days are removed after each backup, in both places.`
  return (
    <Card withBorder component="section" aria-labelledby="destination-heading">
      <Stack gap="sm">
        <Title order={2} size="h3" id="destination-heading">
          Destination
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
          <Stack gap={2}>
            <Text size="sm" fw={600}>
              Backup directory
            </Text>
            <Code style={{ overflowWrap: 'anywhere' }}>{destination.directory}</Code>
          </Stack>
          <Stack gap={2}>
            <Text size="sm" fw={600}>
              Offsite copy
            </Text>
            {destination.bucket ? (
              <Code style={{ overflowWrap: 'anywhere' }}>{destination.bucket}</Code>
            ) : (
              <Text size="sm">Not configured: set VAULT_BACKUP_S3_* to copy every backup to a bucket.</Text>
            )}
          </Stack>
          <Stack gap={2}>
            <Text size="sm" fw={600}>
              Retention
            </Text>
            <Text size="sm">{retention}</Text>
          </Stack>
        </SimpleGrid>
        <Text size="xs" c="dimmed">
          Set by the vault's configuration; change it there and restart.
        </Text>
      </Stack>
    </Card>
  )
}
