import { Button, Group, Modal, Stack, Text } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { NameInput } from './name-input'
import { type Tag, useRenameTag } from './use-tags'

const modelCount = (count: number) => (count === 1 ? '1 model' : `${count} models`)

/**
 * Renames a tag on every model that carries it. A name another tag already has (in any case)
 * merges the two, which the modal says before the user confirms.
 */
export function RenameTagModal({ tag, tags, onClose }: { tag: Tag; tags: Tag[]; onClose: () => void }) {
  const [name, setName] = useState(tag.name)
  const rename = useRenameTag()
  const key = name.trim().toLowerCase()
  const other = tags.find((each) => each.name !== tag.name && each.name.toLowerCase() === key)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    rename.mutate({ tag: tag.name, name: name.trim() }, { onSuccess: onClose })
  }
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Rename tag “${tag.name}”`}>
      <form onSubmit={submit}>
        <Stack>
          <NameInput label="Tag" value={name} onChange={setName} mutation={rename} maxLength={64} data-autofocus />
          <Text size="sm">
            {other
              ? `“${other.name}” is already a tag, of ${modelCount(other.model_count)}: the two become one tag, “${name.trim()}”, on every model of either.`
              : `The tag changes on its ${modelCount(tag.model_count)}.`}
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={rename.isPending}>
              {other ? 'Merge tags' : 'Rename'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
