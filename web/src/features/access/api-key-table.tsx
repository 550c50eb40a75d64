import { Badge, Button, Code, Table, Text, VisuallyHidden } from '@mantine/core'
import { useState } from 'react'
import { KeyExpiry } from './key-expiry'
import { RevokeKeyModal } from './revoke-key-modal'
import { ScopeBadges } from './scope-badges'
import type { ApiKey } from './use-access'
import { when } from './when'

/** The user's API keys: name, prefix, scopes, times, and a Revoke button for live ones. */
export function ApiKeyTable({ keys }: { keys: ApiKey[] }) {
  const [revoking, setRevoking] = useState<ApiKey>()
  return (
    <>
      <Table.ScrollContainer minWidth={760}>
        <Table aria-label="API keys" verticalSpacing="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Prefix</Table.Th>
              <Table.Th>Scopes</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.map((key) => (
              <Table.Tr key={key.id}>
                <Table.Td>{key.name}</Table.Td>
                <Table.Td>
                  <Code>{key.prefix}</Code>
                </Table.Td>
                <Table.Td>
                  <ScopeBadges scopes={key.scopes} />
                </Table.Td>
                <Table.Td>{when(key.created_at)}</Table.Td>
                <Table.Td>
                  <KeyExpiry expiresAt={key.expires_at} />
                </Table.Td>
                <Table.Td>{key.last_used_at ? when(key.last_used_at) : <Text size="sm">Never</Text>}</Table.Td>
                <Table.Td>
                  {key.revoked_at ? (
                    <Badge color="gray" variant="light">
                      Revoked {when(key.revoked_at)}
                    </Badge>
                  ) : (
                    <Button size="xs" color="red" variant="light" onClick={() => setRevoking(key)}>
                      Revoke<VisuallyHidden> {key.name}</VisuallyHidden>
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {revoking && <RevokeKeyModal apiKey={revoking} onClose={() => setRevoking(undefined)} />}
    </>
  )
}
