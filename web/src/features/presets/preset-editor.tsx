import {
  Alert,
  Button,
  ColorSwatch,
  Group,
  Modal,
  NumberInput,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { IconTrash } from '@tabler/icons-react'
import { type FormEvent, useState } from 'react'
import { fieldErrors, hasProblemCode, problemMessage } from '../../api/problem'
import {
  type FilamentBody,
  hexColor,
  type PresetKind,
  type PrinterBody,
  type Profile,
  presetKinds,
} from './preset-kinds'
import { PresetSettings } from './preset-settings'
import { useDeletePreset, useSavePreset } from './use-presets'

type Values = Record<string, string | number>

/** The notification's close button needs a name of its own. */
const dismiss = { 'aria-label': 'Dismiss' }

const valuesOf = (kind: PresetKind, profile: Profile | undefined): Values => {
  const stored = (profile ?? {}) as Record<string, string | number | null | undefined>
  return Object.fromEntries(
    ['name', ...presetKinds[kind].fields.map((field) => field.key)].map((key) => [key, stored[key] ?? '']),
  )
}

/** The form's values as the API takes them: empty fields are null, numbers are numbers. */
const bodyOf = (kind: PresetKind, values: Values): FilamentBody | PrinterBody => {
  const body: Record<string, string | number | null> = { name: String(values.name).trim() }
  for (const field of presetKinds[kind].fields) {
    const value = values[field.key]
    if (field.type === 'number') body[field.key] = value === '' || value === undefined ? null : Number(value)
    else body[field.key] = String(value ?? '').trim() || null
  }
  return body as unknown as FilamentBody | PrinterBody
}

/**
 * One profile in a dialog: its fields (read-only for users), save, delete behind a confirmation,
 * and the slicer settings it was imported with. Without `profile` it makes a new one.
 */
export function PresetEditor(props: {
  kind: PresetKind
  profile: Profile | undefined
  canEdit: boolean
  onClose: () => void
}) {
  const info = presetKinds[props.kind]
  const [values, setValues] = useState(() => valuesOf(props.kind, props.profile))
  const [confirming, setConfirming] = useState(false)
  const save = useSavePreset(props.kind)
  const remove = useDeletePreset(props.kind)
  const fields = fieldErrors(save.error)
  const nameTaken = hasProblemCode(save.error, 'name_taken')
  const formProblem = save.error && !nameTaken && Object.keys(fields).length === 0 ? problemMessage(save.error) : ''
  // Read-only fields look it: filled, not outlined like inputs waiting for text.
  const variant = props.canEdit ? 'default' : 'filled'
  const set = (key: string) => (value: string | number) => setValues((current) => ({ ...current, [key]: value }))

  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(
      { id: props.profile?.id, body: bodyOf(props.kind, values) },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'green', message: `${saved.name} saved.`, closeButtonProps: dismiss })
          props.onClose()
        },
      },
    )
  }
  const confirmDelete = (profile: Profile) =>
    remove.mutate(profile.id, {
      onSuccess: () => {
        notifications.show({ message: `${profile.name} deleted.`, closeButtonProps: dismiss })
        props.onClose()
      },
    })

  const title = props.profile ? props.profile.name : `New ${info.title.toLowerCase()} profile`
  return (
    <Modal
      opened
      onClose={props.onClose}
      title={title}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close the profile' }}
    >
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label="Name"
            required={props.canEdit}
            variant={variant}
            readOnly={!props.canEdit}
            value={String(values.name)}
            onChange={(event) => set('name')(event.currentTarget.value)}
            error={fields.name ?? (nameTaken ? problemMessage(save.error) : undefined)}
            data-autofocus
          />
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            {info.fields.map((field) =>
              field.type === 'number' ? (
                <NumberInput
                  key={field.key}
                  label={field.unit ? `${field.label} (${field.unit})` : field.label}
                  readOnly={!props.canEdit}
                  variant={variant}
                  value={values[field.key]}
                  onChange={set(field.key)}
                  error={fields[field.key]}
                  decimalScale={3}
                  hideControls
                />
              ) : (
                <TextInput
                  key={field.key}
                  label={field.label}
                  placeholder={props.canEdit ? field.placeholder : undefined}
                  readOnly={!props.canEdit}
                  variant={variant}
                  leftSection={
                    hexColor(values[field.key]) && (
                      <ColorSwatch color={String(values[field.key])} size={16} aria-hidden />
                    )
                  }
                  value={String(values[field.key] ?? '')}
                  onChange={(event) => set(field.key)(event.currentTarget.value)}
                  error={fields[field.key]}
                />
              ),
            )}
          </SimpleGrid>
          {formProblem && (
            <Alert color="red" role="alert" title="Not saved">
              {formProblem}
            </Alert>
          )}
          {props.profile && <PresetSettings profile={props.profile} />}
          {props.canEdit && props.profile && confirming && (
            <Alert color="red" role="alert" title={`Delete ${props.profile.name}?`}>
              <Stack gap="sm">
                <Text size="sm">The profile goes for good; G-code files sliced with it no longer link to it.</Text>
                {remove.error && <Text size="sm">{problemMessage(remove.error)}</Text>}
                <Group>
                  <Button
                    color="red"
                    loading={remove.isPending}
                    onClick={() => props.profile && confirmDelete(props.profile)}
                  >
                    Delete for good
                  </Button>
                  <Button variant="default" onClick={() => setConfirming(false)}>
                    Keep it
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}
          <Group justify="space-between">
            {props.canEdit && props.profile ? (
              <Button
                variant="subtle"
                color="red"
                leftSection={<IconTrash size={16} aria-hidden />}
                onClick={() => setConfirming(true)}
                disabled={confirming}
              >
                Delete
              </Button>
            ) : (
              <span />
            )}
            <Group>
              <Button variant="default" onClick={props.onClose}>
                {props.canEdit ? 'Cancel' : 'Close'}
              </Button>
              {props.canEdit && (
                <Button type="submit" loading={save.isPending}>
                  {props.profile ? 'Save' : 'Create'}
                </Button>
              )}
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
