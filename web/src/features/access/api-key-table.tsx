import { Badge, Button, Code, Text, VisuallyHidden } from '@mantine/core'
import { useState } from 'react'
import { type DataColumn, DataTable } from '../../ui/data-table'
import { KeyExpiry } from './key-expiry'
import { RevokeKeyModal } from './revoke-key-modal'
import { ScopeBadges } from './scope-badges'
import type { ApiKey } from './use-access'
import { when } from './when'

/** The user's API keys: name, prefix, scopes, times, and a Revoke button for live ones. */
export function ApiKeyTable({ keys }: { keys: ApiKey[] }) {
  const [revoking, setRevoking] = useState<ApiKey>()
  const columns: DataColumn<ApiKey>[] = [
    { key: 'name', header: 'Name', cell: (key) => key.name },
    { key: 'prefix', header: 'Prefix', cell: (key) => <Code>{key.prefix}</Code> },
    { key: 'scopes', header: 'Scopes', cell: (key) => <ScopeBadges scopes={key.scopes} /> },
    { key: 'created', header: 'Created', cell: (key) => when(key.created_at) },
    { key: 'expires', header: 'Expires', cell: (key) => <KeyExpiry expiresAt={key.expires_at} /> },
    {
      key: 'used',
      header: 'Last used',
      cell: (key) => (key.last_used_at ? when(key.last_used_at) : <Text size="sm">Never</Text>),
    },
    {
      key: 'actions',
      header: null,
      cell: (key) =>
        key.revoked_at ? (
          <Badge color="gray" variant="light">
            Revoked {when(key.revoked_at)}
          </Badge>
        ) : (
          <Button size="xs" color="red" variant="light" onClick={() => setRevoking(key)}>
            Revoke<VisuallyHidden> {key.name}</VisuallyHidden>
          </Button>
        ),
    },
  ]
  return (
    <>
      <DataTable label="API keys" columns={columns} rows={keys} rowKey={(key) => key.id} />
      {revoking && <RevokeKeyModal apiKey={revoking} onClose={() => setRevoking(undefined)} />}
    </>
  )
}
