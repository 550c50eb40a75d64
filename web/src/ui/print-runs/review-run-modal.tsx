import { Button, Checkbox, FileInput, Group, Modal, Radio, Stack, Textarea } from '@mantine/core'
import { useState } from 'react'
import { DialogActions } from '../dialog-actions'
import { type PrintRun, useReviewRun } from './use-print-runs'

type VerdictChoice = 'good' | 'failed' | 'none'

/** A finished print's verdict, note ("spaghetti at layer 40") and photo. */
export function ReviewRunModal({ run, opened, onClose }: { run: PrintRun; opened: boolean; onClose: () => void }) {
  const review = useReviewRun(run.id)
  const [verdict, setVerdict] = useState<VerdictChoice>(run.verdict ?? 'none')
  const [note, setNote] = useState(run.note ?? '')
  const [photo, setPhoto] = useState<File | null>(null)
  const [removePhoto, setRemovePhoto] = useState(false)
  const save = () =>
    review.mutate(
      { review: { verdict: verdict === 'none' ? null : verdict, note: note.trim() || null }, photo, removePhoto },
      { onSuccess: onClose },
    )
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={`Review ${run.file_name}`}
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <Stack gap="md">
        <Radio.Group label="Verdict" value={verdict} onChange={(value) => setVerdict(value as VerdictChoice)}>
          <Group mt="xs">
            <Radio value="good" label="Good" />
            <Radio value="failed" label="Failed" />
            <Radio value="none" label="No verdict" />
          </Group>
        </Radio.Group>
        <Textarea
          label="Note"
          placeholder="spaghetti at layer 40"
          autosize
          minRows={2}
          maxLength={2000}
          value={note}
          onChange={(event) => setNote(event.currentTarget.value)}
        />
        <FileInput
          label="Photo"
          description="JPEG, PNG or WebP, up to 10 MiB"
          accept="image/jpeg,image/png,image/webp"
          clearable
          clearButtonProps={{ 'aria-label': 'Clear the chosen photo' }}
          value={photo}
          onChange={setPhoto}
        />
        {run.photo && !photo && (
          <Checkbox
            label="Remove the photo"
            checked={removePhoto}
            onChange={(event) => setRemovePhoto(event.currentTarget.checked)}
          />
        )}
        <DialogActions error={review.error} onCancel={onClose}>
          <Button onClick={save} loading={review.isPending}>
            Save review
          </Button>
        </DialogActions>
      </Stack>
    </Modal>
  )
}
