import { Button } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { notifications } from '@mantine/notifications'
import { IconTrash } from '@tabler/icons-react'
import { useNavigate } from 'react-router'
import { ConfirmModal } from '../../ui/confirm-modal'
import { useDeleteModel } from './use-model'

/** Deletes the model after a confirmation that says what goes with it, then returns to the library. */
export function DeleteModelButton(props: { modelId: string; name: string; fileCount: number }) {
  const [opened, { open, close }] = useDisclosure()
  const remove = useDeleteModel(props.modelId)
  const navigate = useNavigate()
  const confirm = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        close()
        notifications.show({ message: `Deleted “${props.name}”.` })
        navigate('/library')
      },
    })
  return (
    <>
      <Button
        variant="default"
        leftSection={<IconTrash size={16} color="var(--mantine-color-red-7)" aria-hidden />}
        onClick={open}
      >
        Delete model
      </Button>
      <ConfirmModal
        opened={opened}
        title="Delete this model?"
        confirmLabel="Delete"
        cancelLabel="Keep it"
        error={remove.error}
        pending={remove.isPending}
        onConfirm={confirm}
        onClose={close}
      >
        “{props.name}” and its {props.fileCount === 1 ? 'file' : `${props.fileCount} files`} will be deleted from the
        vault, with its tags and collection memberships. This cannot be undone (except by restoring a backup).
      </ConfirmModal>
    </>
  )
}
