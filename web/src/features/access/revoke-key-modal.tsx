import { Button, Group, Modal, Stack, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { type ApiKey, useRevokeApiKey } from './use-access'

/** Asks before revoking an API key, and says what stops working. */
export function RevokeKeyModal({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const revoke = useRevokeApiKey()
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Revoke “${apiKey.name}”?`}>
      <Stack>
        <Text size="sm">
          Whatever uses this key can no longer sign in with it, and its current sessions stop at once. Your password is
          not affected. This cannot be undone.
        </Text>
        {revoke.error && (
          <Text size="sm" c="red" role="alert">
            {problemMessage(revoke.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Keep it
          </Button>
          <Button
            color="red"
            loading={revoke.isPending}
            onClick={() => revoke.mutate(apiKey.id, { onSuccess: onClose })}
          >
            Revoke key
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
