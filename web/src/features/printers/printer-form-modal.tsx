import { Alert, Button, Checkbox, Group, Modal, Select, Stack, Switch, Text, TextInput } from '@mantine/core'
import { type FormEvent, useState } from 'react'
import { fieldErrors, problemMessage } from '../../api/problem'
import { CredentialInputs } from './credential-inputs'
import { credentialFieldsOf, enteredCredentials } from './provider-credentials'
import type { CreatePrinter, Printer, ProviderName } from './types'
import { usePrinterProviders } from './use-printers'

type Credentials = NonNullable<CreatePrinter['credentials']>

/** What the form hands back: the printer's fields and what to do with its credentials. */
export interface PrinterFormValues {
  name: string
  provider: ProviderName
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
 * Adds or edits a printer. The providers, what their address is and which credentials they take
 * come from the vault (`GET /api/v1/printer-providers`), so a new provider needs no change here.
 * Credentials are write-only: the vault never sends them back, so the fields start empty; left
 * empty, the stored credentials stay.
 */
export function PrinterFormModal({ opened, onClose, printer, onSubmit, error, pending }: PrinterFormModalProps) {
  const providers = usePrinterProviders()
  const [name, setName] = useState(printer?.name ?? '')
  const [provider, setProvider] = useState<ProviderName>((printer?.provider as ProviderName | undefined) ?? 'moonraker')
  const [address, setAddress] = useState(printer?.address ?? '')
  const [requireBedClear, setRequireBedClear] = useState(printer?.require_bed_clear ?? false)
  const [credentialValues, setCredentialValues] = useState<Record<string, string>>({})
  const [removeCredentials, setRemoveCredentials] = useState(false)
  const fields = fieldErrors(error)
  const chosen = providers.data?.find((candidate) => candidate.name === provider)
  const credentialFields = credentialFieldsOf(chosen)
  // Stored credentials are kept unless the printer changes provider, when the new one's are asked for.
  const keepsStored = printer?.has_credentials === true && printer.provider === provider

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const entered = enteredCredentials(credentialFields, credentialValues)
    const credentials = removeCredentials ? null : Object.keys(entered).length > 0 ? entered : undefined
    try {
      await onSubmit({ name, provider, address, require_bed_clear: requireBedClear, credentials })
      onClose()
    } catch {
      // The error is shown in the form.
    }
  }

  const hint = keepsStored
    ? 'Stored, never shown. Leave empty to keep them; anything entered replaces all stored credentials.'
    : credentialFields.some((field) => field.required)
      ? 'Needed to reach this printer. Stored encrypted and never shown again.'
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
            data={(providers.data ?? []).map((candidate) => ({ value: candidate.name, label: candidate.label }))}
            value={provider}
            // The choices are the vault's own providers, which its document lists.
            onChange={(value) => value && setProvider(value as ProviderName)}
            error={fields.provider ?? (providers.isError ? problemMessage(providers.error) : undefined)}
          />
          <TextInput
            label="Address"
            required
            description={chosen && `${chosen.address.description}, e.g. ${chosen.address.example}`}
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
          {credentialFields.length > 0 && (
            <Stack gap="xs" component="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
              <Text component="legend" size="sm" fw={500}>
                Credentials
              </Text>
              <Text size="xs" c="dimmed">
                {hint}
              </Text>
              <CredentialInputs
                fields={credentialFields}
                values={credentialValues}
                onChange={(field, value) => setCredentialValues((values) => ({ ...values, [field]: value }))}
                markRequired={!keepsStored}
                disabled={removeCredentials}
                errors={fields}
              />
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
