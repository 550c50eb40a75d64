import { Alert, Anchor, Button, Code, Group, Modal, Stack, Text } from '@mantine/core'
import { IconAlertTriangle } from '@tabler/icons-react'
import { CopyValueButton } from '../../ui/copy-value-button'

/** The API reference's page for registering a webhook, which says how to check a signature. */
const verifyDocsUrl = new URL('docs#/Webhooks/createWebhook', document.baseURI).href

/** A generic webhook's signing secret, shown this once, with a copy button and how to verify deliveries with it. */
export function NewSecretModal({ name, secret, onClose }: { name: string; secret: string; onClose: () => void }) {
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Signing secret of “${name}”`}>
      <Stack>
        <Alert color="orange" icon={<IconAlertTriangle aria-hidden />} title="Copy it now">
          This is the only time the vault shows this secret. To get a new one, switch the webhook to another format and
          back to generic.
        </Alert>
        <Code block aria-label="Signing secret" style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
          {secret}
        </Code>
        <Text size="sm">
          Each delivery carries <Code>X-Vault-Timestamp</Code> and <Code>X-Vault-Signature</Code>: the HMAC-SHA256 of
          the timestamp, a dot and the raw body, keyed with this secret. Compare it in constant time and refuse old
          timestamps.{' '}
          <Anchor href={verifyDocsUrl} target="_blank">
            How to verify a delivery
          </Anchor>
        </Text>
        <Group justify="flex-end">
          <CopyValueButton value={secret} label="Copy secret" />
          <Button variant="default" onClick={onClose}>
            Done
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
