import { Button, CopyButton } from '@mantine/core'
import { IconCheck, IconCopy } from '@tabler/icons-react'

/** Copies `value` (a key or secret shown once) to the clipboard, and says so for a moment. */
export function CopyValueButton({ value, label }: { value: string; label: string }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button
          variant={copied ? 'light' : 'filled'}
          color={copied ? 'green' : undefined}
          leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
          onClick={copy}
        >
          {copied ? 'Copied' : label}
        </Button>
      )}
    </CopyButton>
  )
}
