import { Anchor, Text } from '@mantine/core'
import { Link } from 'react-router'
import type { components } from '../../api/schema'

type HealthComponent = components['schemas']['HealthComponent']

/** The backup component's only complaint is that no backup was ever tried: what every new install reports. */
export const isNewInstallBackup = (backup: HealthComponent) =>
  backup.status === 'warn' && backup.details?.last_backup_at === null && backup.details?.last_attempt === null

/** Says plainly that the missing first backup is expected on a new install, and where to make one. */
export function FirstBackupHint() {
  return (
    <Text size="sm">
      This is expected on a new install. Make the first backup under{' '}
      <Anchor component={Link} to="/settings/storage" underline="always">
        Settings → Storage
      </Anchor>{' '}
      (admins), or run <code>model-vault backup create</code> from a timer.
    </Text>
  )
}
