import { Button, Modal, Stack } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { fieldErrors } from '../../api/problem'
import { DialogActions } from '../../ui/dialog-actions'
import { type JobSettings, JobSettingsFields, settingsBody, settingsFields } from './job-settings-fields'
import type { PrintJob } from './types'
import { useChangeJob } from './use-farm'

/** Changes a job's priority, max attempts and whether its warnings are accepted (a job waiting on warnings goes). */
export function ChangeJobModal(props: { job: PrintJob; name: string; onClose: () => void }) {
  const change = useChangeJob(props.job.id)
  const [settings, setSettings] = useState<JobSettings>({
    priority: props.job.priority,
    maxAttempts: props.job.max_attempts,
    acceptWarnings: props.job.accept_warnings,
  })
  const errors = fieldErrors(change.error)
  const submit = (event: FormEvent) => {
    event.preventDefault()
    change.mutate(settingsBody(settings), { onSuccess: props.onClose })
  }
  return (
    <Modal opened onClose={props.onClose} title={`Change ${props.name}`} closeButtonProps={{ 'aria-label': 'Close' }}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <JobSettingsFields
            value={settings}
            onChange={(value) => {
              change.reset()
              setSettings(value)
            }}
            errors={errors}
          />
          <DialogActions
            error={settingsFields.some((field) => errors[field]) ? null : change.error}
            onCancel={props.onClose}
          >
            <Button type="submit" loading={change.isPending}>
              Save
            </Button>
          </DialogActions>
        </Stack>
      </form>
    </Modal>
  )
}
