import { Button, Checkbox, Modal, SegmentedControl, Stack, Text, TextInput } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import { notifications } from '@mantine/notifications'
import { IconArrowsSplit } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import { DialogActions } from '../../ui/dialog-actions'
import { ModelPicker } from './model-picker'
import type { ModelFile } from './types'
import { useSendFiles } from './use-reshape'

type Destination = 'new' | 'move' | 'copy'

/**
 * Moves files of this model into a new model (a split) or another model, or copies them there
 * (the bytes are shared, nothing is stored twice). Says where they went.
 */
export function SendFilesButton(props: { modelId: string; modelName: string; files: ModelFile[] }) {
  const [opened, { open, close }] = useDisclosure()
  const [chosen, setChosen] = useState<string[]>([])
  const [destination, setDestination] = useState<Destination>('new')
  const [name, setName] = useState('')
  const [target, setTarget] = useState<string | null>(null)
  const send = useSendFiles(props.modelId)

  const start = () => {
    setChosen([])
    setName(`${props.modelName} (part)`)
    setTarget(null)
    send.reset()
    open()
  }
  const ready = chosen.length > 0 && (destination === 'new' ? name.trim() !== '' : target !== null)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (!ready) return
    const change =
      destination === 'new'
        ? { fileIds: chosen, name: name.trim() }
        : { fileIds: chosen, into: target as string, mode: destination }
    send.mutate(change, {
      onSuccess: (model) => {
        close()
        const verb = destination === 'copy' ? 'Copied' : 'Moved'
        // Notifications render outside the router: words only, no router link.
        notifications.show({
          message: `${verb} ${chosen.length} ${chosen.length === 1 ? 'file' : 'files'} to “${model.name}”.`,
        })
      },
    })
  }
  const verb = destination === 'copy' ? 'Copy' : 'Move'
  return (
    <>
      <Button variant="default" leftSection={<IconArrowsSplit size={16} aria-hidden />} onClick={start}>
        Move or copy files
      </Button>
      <Modal
        opened={opened}
        onClose={close}
        title="Move or copy files"
        closeButtonProps={{ 'aria-label': 'Close' }}
        size="lg"
      >
        <form onSubmit={submit}>
          <Stack>
            <Checkbox.Group label="Files" value={chosen} onChange={setChosen}>
              <Stack gap={6} mt="xs">
                {props.files.map((file) => (
                  <Checkbox
                    key={file.id}
                    value={file.id}
                    label={file.folder ? `${file.folder}/${file.name}` : file.name}
                  />
                ))}
              </Stack>
            </Checkbox.Group>
            <SegmentedControl
              aria-label="Where to"
              value={destination}
              onChange={(value) => setDestination(value as Destination)}
              data={[
                { value: 'new', label: 'To a new model' },
                { value: 'move', label: 'Move to a model' },
                { value: 'copy', label: 'Copy to a model' },
              ]}
            />
            {destination === 'new' ? (
              <TextInput
                label="New model's name"
                value={name}
                onChange={(event) => setName(event.currentTarget.value)}
              />
            ) : (
              <ModelPicker label="To model" exceptId={props.modelId} value={target} onChange={setTarget} />
            )}
            <Text size="sm" c="dimmed">
              {destination === 'copy'
                ? 'The files stay here too; their bytes are stored once.'
                : 'The files keep their folders, links and print history. Undo by moving them back.'}
            </Text>
            <DialogActions error={send.error} onCancel={close}>
              <Button type="submit" disabled={!ready} loading={send.isPending}>
                {verb} {chosen.length || ''} {chosen.length === 1 ? 'file' : 'files'}
              </Button>
            </DialogActions>
          </Stack>
        </form>
      </Modal>
    </>
  )
}
