import { ConfirmModal } from '../../ui/confirm-modal'
import { type Collection, useDeleteCollection } from './use-collections'

/** Asks before deleting a collection, and says that its models stay and that collections inside it keep it. */
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
      {collection.child_count > 0 &&
        ` It holds ${collection.child_count === 1 ? 'a collection' : `${collection.child_count} collections`}: move or delete ${collection.child_count === 1 ? 'it' : 'them'} first.`}
    </ConfirmModal>
  )
}
