import { Button, Modal, Stack, Text } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { notifications } from '@mantine/notifications'
import { IconArrowsJoin } from '@tabler/icons-react'
import { useState } from 'react'
import { DialogActions } from '../../ui/dialog-actions'
import { ModelsPicker } from './model-picker'
import { useMergeModels } from './use-reshape'

/** Merges other models into this one after a confirmation that says what moves and what goes. */
export function MergeModelsButton(props: { modelId: string; modelName: string }) {
  const [opened, { open, close }] = useDisclosure()
  const [sources, setSources] = useState<string[]>([])
  const merge = useMergeModels(props.modelId)
  const start = () => {
    setSources([])
    merge.reset()
    open()
  }
  const confirm = () =>
    merge.mutate(sources, {
      onSuccess: () => {
        close()
        notifications.show({
          message: `Merged ${sources.length} ${sources.length === 1 ? 'model' : 'models'} into “${props.modelName}”.`,
        })
      },
    })
  const count = sources.length
  return (
    <>
      <Button variant="default" leftSection={<IconArrowsJoin size={16} aria-hidden />} onClick={start}>
        Merge models in
      </Button>
      <Modal
        opened={opened}
        onClose={close}
        title={`Merge models into “${props.modelName}”`}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack>
          <ModelsPicker label="Models to merge in" exceptId={props.modelId} value={sources} onChange={setSources} />
          <Text size="sm">
            Their files, tags and collections join this model, and{' '}
            {count === 1 ? 'that model is' : `the ${count || ''} models are`} deleted. Each file keeps its folder, links
            and print history; a file whose bytes this model already holds is kept once. Undo by moving their files to a
            new model.
          </Text>
          <DialogActions error={merge.error} onCancel={close}>
            <Button color="red" disabled={count === 0} loading={merge.isPending} onClick={confirm}>
              Merge {count || ''} {count === 1 ? 'model' : 'models'}
            </Button>
          </DialogActions>
        </Stack>
      </Modal>
    </>
  )
}
