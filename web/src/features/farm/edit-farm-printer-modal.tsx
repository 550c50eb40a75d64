import { Button, Modal, Stack, TagsInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { fieldErrors } from '../../api/problem'
import { DialogActions } from '../../ui/dialog-actions'
import { BedClearingFields, clearingOf, draftOf } from './bed-clearing-fields'
import type { FarmPrinter } from './types'
import { useSetFarmPrinter } from './use-farm'

/** Errors of a list field name its items (`groups.0`): the first one is shown on the field. */
const listError = (errors: Record<string, string>, field: string) =>
  Object.entries(errors).find(([path]) => path === field || path.startsWith(`${field}.`))?.[1]

/** Sets a printer's groups (what jobs can target), the filament types loaded in it, and how its bed is cleared. */
export function EditFarmPrinterModal(props: { name: string; farm: FarmPrinter; onClose: () => void }) {
  const save = useSetFarmPrinter(props.farm.printer_id)
  const [groups, setGroups] = useState(props.farm.groups)
  const [filaments, setFilaments] = useState(props.farm.loaded_filaments)
  const [clearing, setClearing] = useState(draftOf(props.farm.bed_clearing))
  const errors = fieldErrors(save.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(
      { groups, loaded_filaments: filaments, bed_clearing: clearingOf(clearing) },
      { onSuccess: props.onClose },
    )
  }
  return (
    <Modal
      opened
      onClose={props.onClose}
      title={`Groups and filament of ${props.name}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit}>
        <Stack>
          <TagsInput
            label="Groups"
            description="Jobs can target a group: any of its printers may take them. Press Enter after each."
            value={groups}
            onChange={setGroups}
            error={listError(errors, 'groups')}
          />
          <TagsInput
            label="Loaded filament"
            description="Types as slicers name them (PLA, PETG): a file that uses another type is not sent here."
            value={filaments}
            onChange={(values) => setFilaments(values.map((value) => value.toUpperCase()))}
            error={listError(errors, 'loaded_filaments')}
          />
          <BedClearingFields value={clearing} onChange={setClearing} errors={errors} />
          <DialogActions error={save.error} onCancel={props.onClose}>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  )
}
