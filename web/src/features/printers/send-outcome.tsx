import { Alert, List, Stack, Text, ThemeIcon } from '@mantine/core'
import { IconCheck, IconMinus, IconX } from '@tabler/icons-react'
import type { Dispatch } from './types'

const stepLabels = { upload: 'Uploaded', start: 'Started', confirm: 'Confirmed printing' } as const

/**
 * What a send did, step by step as the vault recorded it: uploaded, started, confirmed, each
 * done, failed, or not attempted, with the vault's own sentence.
 */
export function SendOutcome({ dispatch }: { dispatch: Dispatch }) {
  const good = dispatch.outcome === 'confirmed' || dispatch.outcome === 'uploaded'
  const wanted = (['upload', 'start', 'confirm'] as const).filter(
    (step) => step === 'upload' || dispatch.start_requested,
  )
  return (
    <Stack gap="sm">
      <Alert color={good ? 'green' : 'red'} role={good ? 'status' : 'alert'} title={good ? 'Sent' : 'Not done'}>
        {dispatch.detail}
      </Alert>
      <List spacing="xs" aria-label="Dispatch steps">
        {wanted.map((step) => {
          const recorded = dispatch.steps.find((candidate) => candidate.step === step)
          const icon = !recorded ? (
            <IconMinus size={14} aria-hidden />
          ) : recorded.ok ? (
            <IconCheck size={14} aria-hidden />
          ) : (
            <IconX size={14} aria-hidden />
          )
          const word = !recorded ? 'not attempted' : recorded.ok ? 'done' : 'failed'
          return (
            <List.Item
              key={step}
              icon={
                <ThemeIcon size={22} radius="xl" color={!recorded ? 'gray' : recorded.ok ? 'green' : 'red'}>
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
