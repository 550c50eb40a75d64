import { Button, Modal, NumberInput, Radio, Select, Stack, Text } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { type FormEvent, useState } from 'react'
import { fieldErrors } from '../../api/problem'
import { DialogActions } from '../../ui/dialog-actions'
import { type JobSettings, JobSettingsFields, settingsBody, settingsFields } from './job-settings-fields'
import type { PrintTarget } from './types'
import { useCreateJob, useFleet } from './use-farm'

type TargetKind = PrintTarget['kind']

/** The fields that show the vault's refusals next to them; any other refusal shows below the form. */
const shownFields = ['target', 'target.printer_id', 'target.group', 'copies', ...settingsFields]

/**
 * Queues one print-ready file: where it may print (one printer, a group, any compatible printer),
 * how many copies, its priority and tries, and whether warnings are accepted. The vault's refusals
 * show on the fields they name. The printer and group lists come from the farm.
 */
export function AddToQueueModal(props: { file: { id: string; name: string }; onClose: () => void }) {
  const fleet = useFleet()
  const create = useCreateJob()
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
        file_ids: [props.file.id],
        target: target(),
        copies: typeof copies === 'number' ? copies : undefined,
        ...settingsBody(settings),
      },
      {
        onSuccess: () => {
          props.onClose()
          notifications.show({ message: `${props.file.name} is in the print queue.` })
        },
      },
    )
  }
  return (
    <Modal opened onClose={props.onClose} title="Add to print queue" closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
            {props.file.name}
          </Text>
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
