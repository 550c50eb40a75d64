import { Alert, Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core'
import { IconSend } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { GcodeFilePicker } from './gcode-file-picker'
import { PrinterChoice } from './printer-choice'
import { SendOutcome } from './send-outcome'
import type { GcodeFile } from './types'
import { useSendToPrinter } from './use-send'

interface SendDialogProps {
  opened: boolean
  onClose: () => void
  /** The file to send; without it the dialog asks for one among the vault's G-code files. */
  file?: GcodeFile
  /** The printer chosen first (the printer page's own). */
  printerId?: string
}

/**
 * Sends a G-code file to a printer: shows every printer's readiness, sends, and then says honestly
 * what happened (uploaded, started, confirmed), or why the vault refused.
 */
export function SendDialog({ opened, onClose, file, printerId }: SendDialogProps) {
  const [picked, setPicked] = useState<GcodeFile | null>(null)
  const [printer, setPrinter] = useState<string | null>(printerId ?? null)
  const [start, setStart] = useState(true)
  const send = useSendToPrinter()
  const chosenFile = file ?? picked
  const finished = send.isSuccess || send.isError

  const close = () => {
    send.reset()
    onClose()
  }
  return (
    <Modal
      opened={opened}
      onClose={close}
      title="Send to printer"
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close dialog' }}
    >
      <Stack>
        {file ? (
          <Text>
            File: <strong style={{ overflowWrap: 'anywhere' }}>{file.name}</strong>
          </Text>
        ) : (
          <GcodeFilePicker onChange={setPicked} />
        )}
        <PrinterChoice
          value={printer}
          onChange={(id) => {
            setPrinter(id)
            send.reset()
          }}
        />
        <Checkbox
          label="Start printing once uploaded"
          checked={start}
          onChange={(event) => setStart(event.currentTarget.checked)}
        />
        {send.isSuccess && <SendOutcome dispatch={send.data} />}
        {send.isError && (
          <Alert color="red" role="alert" title="Refused">
            {problemMessage(send.error)}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={close}>
            {finished ? 'Close' : 'Cancel'}
          </Button>
          <Button
            leftSection={<IconSend size={16} aria-hidden />}
            disabled={!chosenFile || !printer}
            loading={send.isPending}
            onClick={() => chosenFile && printer && send.mutate({ printerId: printer, fileId: chosenFile.id, start })}
          >
            {finished ? 'Send again' : 'Send'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  )
}
