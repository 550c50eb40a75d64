import { ConfirmModal } from '../../ui/confirm-modal'
import { type Tag, useDeleteTag } from './use-tags'

/** Asks before taking a tag off every model, saying how many carry it and that they stay. */
export function DeleteTagModal({ tag, onClose }: { tag: Tag; onClose: () => void }) {
  const remove = useDeleteTag()
  const models = tag.model_count === 1 ? 'the 1 model' : `all ${tag.model_count} models`
  return (
    <ConfirmModal
      title={`Delete tag “${tag.name}”?`}
      confirmLabel="Delete tag"
      cancelLabel="Keep it"
      error={remove.error}
      pending={remove.isPending}
      onConfirm={() => remove.mutate(tag.name, { onSuccess: onClose })}
      onClose={onClose}
    >
      The tag is taken off {models} that carry it; the models stay in the library.
    </ConfirmModal>
  )
}
