import { Button, Group, Modal, Stack, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { type Collection, useDeleteCollection } from './use-collections'

/** Asks before deleting a collection, and says that its models stay. */
export function DeleteCollectionModal({ collection, onClose }: { collection: Collection; onClose: () => void }) {
  const remove = useDeleteCollection()
  const models = collection.model_count === 1 ? '1 model' : `${collection.model_count} models`
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Delete “${collection.name}”?`}>
      <Stack>
        <Text size="sm">
          The collection goes; its {models} stay in the library, in any other collections they are in.
        </Text>
        {remove.error && (
          <Text size="sm" c="red" role="alert">
            {problemMessage(remove.error)}
          </Text>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Keep it
          </Button>
          <Button
            color="red"
            loading={remove.isPending}
            onClick={() => remove.mutate(collection.id, { onSuccess: onClose })}
          >
            Delete collection
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
