import { Alert, Loader, Stack, Text, Title } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { ApiKeyTable } from './api-key-table'
import { ChangePasswordForm } from './change-password-form'
import { CreateApiKeyForm } from './create-api-key-form'
import { useApiKeys } from './use-access'

/** Settings → Access: the user's API keys (create, revoke) and their own password. */
export function AccessPage() {
  const keys = useApiKeys()
  return (
    <Stack gap="xl">
      <Title order={1}>Access</Title>
      <Stack component="section" aria-labelledby="api-keys-heading">
        <Title order={2} size="h3" id="api-keys-heading">
          API keys
        </Title>
        <Text size="sm" c="dimmed">
          For scripts and slicer hooks: they present a key instead of your password. Each key may do only what you allow
          it, and no more than your role.
        </Text>
        <CreateApiKeyForm />
        {keys.isPending && <Loader size="sm" aria-label="Loading API keys" />}
        {keys.error && (
          <Alert color="red" title="Cannot load the API keys">
            {problemMessage(keys.error)}
          </Alert>
        )}
        {keys.data?.length === 0 && <Text c="dimmed">No API keys yet.</Text>}
        {keys.data && keys.data.length > 0 && <ApiKeyTable keys={keys.data} />}
      </Stack>
      <Stack component="section" aria-labelledby="password-heading">
        <Title order={2} size="h3" id="password-heading">
          Password
        </Title>
        <ChangePasswordForm />
      </Stack>
    </Stack>
  )
}
