import { ConfirmModal } from '../../ui/confirm-modal'
import type { LibraryQuery } from './library-query'
import { useSelectionCount } from './use-bulk-action'
import type { ModelSelection } from './use-model-selection'

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`

/** Asks before deleting the selection, counting the models and files that go (a dry run on the server). */
export function BulkDeleteModal(props: {
  opened: boolean
  query: LibraryQuery
  selection: ModelSelection
  error: unknown
  pending: boolean
  onConfirm: () => void
  onClose: () => void
}) {
  const count = useSelectionCount(props.query, props.selection, props.opened)
  const counted = count.data
  return (
    <ConfirmModal
      opened={props.opened}
      title="Delete models"
      confirmLabel={counted ? `Delete ${plural(counted.models, 'model', 'models')}` : 'Delete'}
      cancelLabel="Keep them"
      error={props.error ?? count.error}
      pending={props.pending || count.isFetching}
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      {counted
        ? `Delete ${plural(counted.models, 'model', 'models')} and their ${plural(counted.files, 'file', 'files')}? Their stored bytes go too, unless another model holds the same. This cannot be undone.`
        : 'Counting what the selection holds…'}
    </ConfirmModal>
  )
}
