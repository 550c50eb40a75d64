import { Button, Group, Text } from '@mantine/core'
import type { ReactNode } from 'react'
import { problemMessage } from '../api/problem'

/** A dialog's last row: the refusal of the last try (the vault's readable message), Cancel (focused first) and the action. */
export function DialogActions(props: {
  error: unknown
  onCancel: () => void
  cancelLabel?: string
  children: ReactNode
}) {
  return (
    <>
      {props.error ? (
        <Text size="sm" c="red" role="alert">
          {problemMessage(props.error)}
        </Text>
      ) : null}
      <Group justify="flex-end">
        <Button variant="default" onClick={props.onCancel} data-autofocus>
          {props.cancelLabel ?? 'Cancel'}
        </Button>
        {props.children}
      </Group>
    </>
  )
}
