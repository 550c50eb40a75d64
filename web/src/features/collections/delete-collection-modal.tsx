import { ConfirmModal } from '../../ui/confirm-modal'
import { type Collection, useDeleteCollection } from './use-collections'

/** Asks before deleting a collection, and says that its models stay. */
export function DeleteCollectionModal({ collection, onClose }: { collection: Collection; onClose: () => void }) {
  const remove = useDeleteCollection()
  const models = collection.model_count === 1 ? '1 model' : `${collection.model_count} models`
  return (
    <ConfirmModal
      title={`Delete “${collection.name}”?`}
      confirmLabel="Delete collection"
      cancelLabel="Keep it"
      error={remove.error}
      pending={remove.isPending}
      onConfirm={() => remove.mutate(collection.id, { onSuccess: onClose })}
      onClose={onClose}
    >
      The collection goes; its {models} stay in the library, in any other collections they are in.
    </ConfirmModal>
  )
}
