import { Alert, Button, Code, Group, Modal, Stack, Text } from '@mantine/core'
import { IconAlertTriangle } from '@tabler/icons-react'
import type { components } from '../../api/schema'
import { CopyValueButton } from '../../ui/copy-value-button'
import { ScopeBadges } from './scope-badges'

/** A new API key's value, shown this once, with its scopes, a copy button and the warning that it will not be shown again. */
export function NewKeyModal({ apiKey, onClose }: { apiKey: components['schemas']['NewApiKey']; onClose: () => void }) {
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`API key “${apiKey.name}”`}>
      <Stack>
        <Alert color="orange" icon={<IconAlertTriangle aria-hidden />} title="Copy it now">
          This is the only time the vault shows this key. It keeps only a hash; if you lose the key, revoke it and
          create another.
        </Alert>
        <Code block aria-label="API key value" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
          {apiKey.key}
        </Code>
        <Group gap="xs">
          <Text size="sm">Scopes:</Text>
          <ScopeBadges scopes={apiKey.scopes} />
        </Group>
        <Text size="sm">
          Scripts sign in with <Code>{'{"username": …, "api_key": …}'}</Code> at /api/v1/auth/login.
        </Text>
        <Group justify="flex-end">
          <CopyValueButton value={apiKey.key} label="Copy key" />
          <Button variant="default" onClick={onClose}>
            Done
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
