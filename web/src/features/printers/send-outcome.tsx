import { Alert, List, Stack, Text, ThemeIcon } from '@mantine/core'
import { IconCheck, IconClock, IconMinus, IconX } from '@tabler/icons-react'
import type { Dispatch } from './types'

const stepLabels = { upload: 'Uploaded', start: 'Started', confirm: 'Confirmed printing' } as const

/** The alert's colour and title for an outcome: sent, still being prepared by the printer, or not done. */
function summary(outcome: Dispatch['outcome']) {
  if (outcome === 'confirmed' || outcome === 'uploaded') return { color: 'green', title: 'Sent', role: 'status' }
  if (outcome === 'preparing') return { color: 'blue', title: 'Started: the printer is preparing it', role: 'status' }
  return { color: 'red', title: 'Not done', role: 'alert' }
}

/**
 * What a send did, step by step as the vault recorded it: uploaded, started, confirmed, each
 * done, failed, waiting (a printer still preparing the job), or not attempted, with the vault's
 * own sentence.
 */
export function SendOutcome({ dispatch }: { dispatch: Dispatch }) {
  const { color, title, role } = summary(dispatch.outcome)
  const wanted = (['upload', 'start', 'confirm'] as const).filter(
    (step) => step === 'upload' || dispatch.start_requested,
  )
  const waiting = (step: string) => step === 'confirm' && dispatch.outcome === 'preparing'
  return (
    <Stack gap="sm">
      <Alert color={color} role={role} title={title}>
        {dispatch.detail}
      </Alert>
      <List spacing="xs" aria-label="Dispatch steps">
        {wanted.map((step) => {
          const recorded = dispatch.steps.find((candidate) => candidate.step === step)
          const icon = waiting(step) ? (
            <IconClock size={14} aria-hidden />
          ) : !recorded ? (
            <IconMinus size={14} aria-hidden />
          ) : recorded.ok ? (
            <IconCheck size={14} aria-hidden />
          ) : (
            <IconX size={14} aria-hidden />
          )
          const word = waiting(step)
            ? 'waiting for the printer'
            : !recorded
              ? 'not attempted'
              : recorded.ok
                ? 'done'
                : 'failed'
          const tone = waiting(step) ? 'blue' : !recorded ? 'gray' : recorded.ok ? 'green' : 'red'
          return (
            <List.Item
              key={step}
              icon={
                <ThemeIcon size={22} radius="xl" color={tone}>
                  {icon}
                </ThemeIcon>
              }
            >
              <Text size="sm" fw={600} component="span">
                {stepLabels[step]}: {word}
              </Text>
              {recorded && (
                <Text size="xs" c="dimmed">
                  {recorded.detail}
                </Text>
              )}
            </List.Item>
          )
        })}
      </List>
    </Stack>
  )
}
