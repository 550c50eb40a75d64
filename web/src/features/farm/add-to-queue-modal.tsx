import { Button, Checkbox, Modal, NumberInput, Radio, Select, Stack, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { type FormEvent, useState } from 'react'
import { isPrintReady } from '../../api/print-ready'
import { fieldErrors } from '../../api/problem'
import { DialogActions } from '../../ui/dialog-actions'
import { type JobSettings, JobSettingsFields, settingsBody, settingsFields } from './job-settings-fields'
import type { PrintTarget, QueuedFile } from './types'
import { useCreateJob, useFleet, useJobModels } from './use-farm'

type TargetKind = PrintTarget['kind']

/** The fields that show the vault's refusals next to them; any other refusal shows below the form. */
const shownFields = ['file_ids', 'target', 'target.printer_id', 'target.group', 'copies', ...settingsFields]

/**
 * Queues a print-ready file, or a set of its model's print-ready files printed one after another on
 * one printer (a box's base and lid): where it may print (one printer, a group, any compatible
 * printer), how many copies of the set, its priority and tries, and whether warnings are accepted.
 * The vault's refusals show on the fields they name. The printer and group lists come from the farm.
 */
export function AddToQueueModal(props: { file: QueuedFile; onClose: () => void }) {
  const fleet = useFleet()
  const create = useCreateJob()
  const model = useJobModels([props.file.model_id]).get(props.file.model_id)
  // In the model's order; the file the person started from until the model has loaded.
  const choices = model?.files.filter(isPrintReady) ?? [props.file]
  const [chosen, setChosen] = useState<string[]>([props.file.id])
  const [kind, setKind] = useState<TargetKind>('any')
  const [printerId, setPrinterId] = useState<string | null>(null)
  const [group, setGroup] = useState<string | null>(null)
  const [copies, setCopies] = useState<string | number>(1)
  const [settings, setSettings] = useState<JobSettings>({ priority: 0, maxAttempts: 3, acceptWarnings: false })
  const errors = fieldErrors(create.error)
  // A refusal stays on screen until the next change, not while the person fixes what it names.
  const edited =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      create.reset()
      set(value)
    }
  const printers = (fleet.data ?? []).map(({ printer }) => ({ value: printer.id, label: printer.name }))
  const groups = [...new Set((fleet.data ?? []).flatMap(({ farm }) => farm?.groups ?? []))].sort()

  const target = (): PrintTarget =>
    kind === 'printer'
      ? { kind, printer_id: printerId ?? '' }
      : kind === 'group'
        ? { kind, group: group ?? '' }
        : { kind }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    create.mutate(
      {
        file_ids: choices.filter((file) => chosen.includes(file.id)).map((file) => file.id),
        target: target(),
        copies: typeof copies === 'number' ? copies : undefined,
        ...settingsBody(settings),
      },
      {
        onSuccess: () => {
          props.onClose()
          notifications.show({
            message:
              chosen.length > 1
                ? `A set of ${chosen.length} files is in the print queue.`
                : `${props.file.name} is in the print queue.`,
          })
        },
      },
    )
  }
  return (
    <Modal opened onClose={props.onClose} title="Add to print queue" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          {choices.length > 1 ? (
            <Checkbox.Group
              label="Files in this set"
              description="Printed one after another on the same printer, in this order; each copy prints the whole set."
              value={chosen}
              onChange={edited(setChosen)}
              error={errors.file_ids}
            >
              <Stack gap={6} mt="xs">
                {choices.map((file) => (
                  <Checkbox key={file.id} value={file.id} label={file.name} style={{ overflowWrap: 'anywhere' }} />
                ))}
              </Stack>
            </Checkbox.Group>
          ) : (
            <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
              {props.file.name}
            </Text>
          )}
          <Radio.Group
            label="Print on"
            value={kind}
            onChange={edited((value: string) => setKind(value as TargetKind))}
            error={errors.target}
          >
            <Stack gap={6} mt="xs">
              <Radio value="any" label="Any compatible printer" />
              <Radio value="printer" label="This printer" />
              <Radio value="group" label="A group of printers" />
            </Stack>
          </Radio.Group>
          {kind === 'printer' && (
            <Select
              label="Printer"
              placeholder={printers.length > 0 ? 'Choose a printer' : 'No printers yet'}
              data={printers}
              value={printerId}
              onChange={edited(setPrinterId)}
              error={errors['target.printer_id']}
            />
          )}
          {kind === 'group' && (
            <Select
              label="Group"
              placeholder={groups.length > 0 ? 'Choose a group' : 'No printer has a group yet'}
              description="Groups are set on each printer's card on the Farm page."
              data={groups}
              value={group}
              onChange={edited(setGroup)}
              error={errors['target.group']}
            />
          )}
          <NumberInput
            label="Copies"
            value={copies}
            onChange={edited(setCopies)}
            allowDecimal={false}
            error={errors.copies}
          />
          <JobSettingsFields value={settings} onChange={edited(setSettings)} errors={errors} />
          <DialogActions
            error={shownFields.some((field) => errors[field]) ? null : create.error}
            onCancel={props.onClose}
          >
            <Button type="submit" loading={create.isPending}>
              Add to queue
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  )
}
