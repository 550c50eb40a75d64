import { ConfirmModal } from '../../ui/confirm-modal'
import { type ApiKey, useRevokeApiKey } from './use-access'

/** Asks before revoking an API key, and says what stops working. */
export function RevokeKeyModal({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const revoke = useRevokeApiKey()
  return (
    <ConfirmModal
      title={`Revoke “${apiKey.name}”?`}
      confirmLabel="Revoke key"
      cancelLabel="Keep it"
      error={revoke.error}
      pending={revoke.isPending}
      onConfirm={() => revoke.mutate(apiKey.id, { onSuccess: onClose })}
      onClose={onClose}
    >
      Whatever uses this key can no longer sign in with it, and its current sessions stop at once. Your password is not
      affected. This cannot be undone.
    </ConfirmModal>
  )
}
