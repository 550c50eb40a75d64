import {
  Alert,
  Button,
  Checkbox,
  Group,
  Modal,
  PasswordInput,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
} from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { fieldErrors, problemMessage } from '../../api/problem'
import { providers } from './format'
import type { CreatePrinter, Printer, Provider } from './types'

type Credentials = NonNullable<CreatePrinter['credentials']>

/** What the form hands back: the printer's fields and what to do with its credentials. */
export interface PrinterFormValues {
  name: string
  provider: Provider
  address: string
  require_bed_clear: boolean
  /** New credentials to store, `null` to remove the stored ones, `undefined` to keep them. */
  credentials: Credentials | null | undefined
}

interface PrinterFormModalProps {
  opened: boolean
  onClose: () => void
  /** The printer being edited; none when adding one. */
  printer?: Printer
  onSubmit: (values: PrinterFormValues) => Promise<unknown>
  error: unknown
  pending: boolean
}

/**
 * Adds or edits a printer. Credentials are write-only: the vault never sends them back, so the
 * fields start empty; left empty, the stored credentials stay.
 */
export function PrinterFormModal({ opened, onClose, printer, onSubmit, error, pending }: PrinterFormModalProps) {
  const [name, setName] = useState(printer?.name ?? '')
  const [provider, setProvider] = useState<Provider>((printer?.provider as Provider | undefined) ?? 'moonraker')
  const [address, setAddress] = useState(printer?.address ?? '')
  const [requireBedClear, setRequireBedClear] = useState(printer?.require_bed_clear ?? false)
  const [apiKey, setApiKey] = useState('')
  const [username, setUsername] = useState('')
  const [password, setPassword] = useState('')
  const [serial, setSerial] = useState('')
  const [accessCode, setAccessCode] = useState('')
  const [removeCredentials, setRemoveCredentials] = useState(false)
  const fields = fieldErrors(error)
  const example = providers.find((candidate) => candidate.value === provider)?.address

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const entered: Credentials = {}
    if (apiKey) entered.api_key = apiKey
    if (username) entered.username = username
    if (password) entered.password = password
    if (serial) entered.serial = serial.trim()
    if (accessCode) entered.access_code = accessCode
    const credentials = removeCredentials ? null : Object.keys(entered).length > 0 ? entered : undefined
    try {
      await onSubmit({ name, provider, address, require_bed_clear: requireBedClear, credentials })
      onClose()
    } catch {
      // The error is shown in the form.
    }
  }

  const hint = printer?.has_credentials
    ? 'Stored, never shown. Leave empty to keep them; anything entered replaces all stored credentials.'
    : provider === 'bambu'
      ? 'Both needed to reach a Bambu printer. Stored encrypted and never shown again.'
      : 'Optional. Stored encrypted and never shown again.'

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={printer ? `Edit ${printer.name}` : 'Add a printer'}
      closeButtonProps={{ 'aria-label': 'Close dialog' }}
    >
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Name"
            required
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            error={fields.name}
            data-autofocus
          />
          <Select
            label="Provider"
            required
            allowDeselect={false}
            data={providers.map(({ value, label }) => ({ value, label }))}
            value={provider}
            onChange={(value) => value && setProvider(value as Provider)}
            error={fields.provider}
          />
          <TextInput
            label="Address"
            required
            description={
              provider === 'virtual'
                ? `A simulated printer (no hardware), e.g. ${example}: heat and print times in seconds`
                : provider === 'bambu'
                  ? `The printer's IP address or host name, e.g. ${example} (its network settings on the printer's screen)`
                  : `The printer's API base URL, e.g. ${example}`
            }
            value={address}
            onChange={(event) => setAddress(event.currentTarget.value)}
            error={fields.address}
          />
          <Switch
            label="Confirm the bed is clear after each job"
            description="The printer takes no new job until someone confirms here that the last print was taken off."
            checked={requireBedClear}
            onChange={(event) => setRequireBedClear(event.currentTarget.checked)}
          />
          {provider !== 'virtual' && (
            <Stack gap="xs" component="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
              <Text component="legend" size="sm" fw={500}>
                Credentials
              </Text>
              <Text size="xs" c="dimmed">
                {hint}
              </Text>
              {provider === 'bambu' ? (
                <>
                  <TextInput
                    label="Serial number"
                    description="On the printer's screen under its device settings; it names the printer's MQTT topics"
                    autoComplete="off"
                    value={serial}
                    onChange={(event) => setSerial(event.currentTarget.value)}
                    disabled={removeCredentials}
                    error={fields['credentials.serial']}
                  />
                  <PasswordInput
                    label="Access code"
                    description="The LAN access code on the printer's screen; it changes when LAN Only or Developer Mode is switched"
                    autoComplete="off"
                    value={accessCode}
                    onChange={(event) => setAccessCode(event.currentTarget.value)}
                    disabled={removeCredentials}
                    error={fields['credentials.access_code']}
                  />
                </>
              ) : (
                <PasswordInput
                  label="API key"
                  autoComplete="off"
                  value={apiKey}
                  onChange={(event) => setApiKey(event.currentTarget.value)}
                  disabled={removeCredentials}
                  error={fields['credentials.api_key']}
                />
              )}
              {provider === 'prusalink' && (
                <>
                  <TextInput
                    label="Username"
                    description="PrusaLink digest user, usually maker"
                    autoComplete="off"
                    value={username}
                    onChange={(event) => setUsername(event.currentTarget.value)}
                    disabled={removeCredentials}
                    error={fields['credentials.username']}
                  />
                  <PasswordInput
                    label="Printer password"
                    autoComplete="new-password"
                    value={password}
                    onChange={(event) => setPassword(event.currentTarget.value)}
                    disabled={removeCredentials}
                    error={fields['credentials.password']}
                  />
                </>
              )}
              {printer?.has_credentials && (
                <Checkbox
                  label="Remove the stored credentials"
                  checked={removeCredentials}
                  onChange={(event) => setRemoveCredentials(event.currentTarget.checked)}
                />
              )}
            </Stack>
          )}
          {error !== null && error !== undefined && (
            <Alert color="red" role="alert">
              {problemMessage(error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={pending}>
              {printer ? 'Save' : 'Add printer'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  )
}
