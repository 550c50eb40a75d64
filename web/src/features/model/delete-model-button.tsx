import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { notifications } from '@mantine/notifications'
import { IconTrash } from '@tabler/icons-react'
import { useNavigate } from 'react-router'
import { problemMessage } from '../../api/problem'
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
      <Modal opened={opened} onClose={close} title="Delete this model?" centered>
        <Stack>
          <Text>
            “{props.name}” and its {props.fileCount === 1 ? 'file' : `${props.fileCount} files`} will be deleted from
            the vault, with its tags and collection memberships. This cannot be undone (except by restoring a backup).
          </Text>
          {remove.error && (
            <Alert color="red" role="alert" title="Not deleted">
              {problemMessage(remove.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Keep it
            </Button>
            <Button color="red" onClick={confirm} loading={remove.isPending}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  )
}
