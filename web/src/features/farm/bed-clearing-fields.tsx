import { NumberInput, Radio, Stack, Textarea } from '@mantine/core'
import type { BedClearing } from './types'

/** The bed-clearing setting as the form holds it: a script's fields are kept while "By a person" is chosen. */
export interface BedClearingDraft {
  by: BedClearing['by']
  script: string
  below_c: number | string
  timeout_s: number | string
}

export const draftOf = (clearing: BedClearing): BedClearingDraft =>
  clearing.by === 'script'
    ? { by: 'script', script: clearing.script, below_c: clearing.below_c, timeout_s: clearing.timeout_s ?? 600 }
    : { by: 'person', script: '', below_c: 35, timeout_s: 600 }

export const clearingOf = (draft: BedClearingDraft): BedClearing =>
  draft.by === 'script'
    ? { by: 'script', script: draft.script, below_c: Number(draft.below_c), timeout_s: Number(draft.timeout_s) }
    : { by: 'person' }

/**
 * How the printer's bed becomes clear after a job: a person confirms it, or the vault runs a
 * G-code script once the bed has cooled below a temperature.
 */
export function BedClearingFields(props: {
  value: BedClearingDraft
  onChange: (value: BedClearingDraft) => void
  errors: Record<string, string>
}) {
  const { value, onChange, errors } = props
  const error = (field: string) => errors[`bed_clearing.${field}`]
  return (
    <Stack gap="xs">
      <Radio.Group
        label="Bed clearing"
        description="How the bed becomes free for the next job."
        value={value.by}
        onChange={(by) => onChange({ ...value, by: by === 'script' ? 'script' : 'person' })}
        error={error('by')}
      >
        <Stack gap={6} mt={6}>
          <Radio value="person" label="A person confirms it" />
          <Radio value="script" label="By a G-code script (parts ejected)" />
        </Stack>
      </Radio.Group>
      {value.by === 'script' && (
        <>
          <Textarea
            label="Clearing script"
            description="A macro name (EJECT_PARTS) or G-code lines, run once the bed has cooled."
            autosize
            minRows={2}
            maxRows={8}
            value={value.script}
            onChange={(event) => onChange({ ...value, script: event.currentTarget.value })}
            error={error('script')}
            styles={{ input: { fontFamily: 'monospace' } }}
          />
          <NumberInput
            label="Cool the bed below (°C)"
            min={15}
            max={100}
            value={value.below_c}
            onChange={(below_c) => onChange({ ...value, below_c })}
            error={error('below_c')}
          />
          <NumberInput
            label="Time for the script (s)"
            description="Past it, the printer is held for a person to look at."
            min={10}
            max={3600}
            allowDecimal={false}
            value={value.timeout_s}
            onChange={(timeout_s) => onChange({ ...value, timeout_s })}
            error={error('timeout_s')}
          />
        </>
      )}
    </Stack>
  )
}
