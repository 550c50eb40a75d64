import { Anchor, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { InlineTextEdit } from './inline-text-edit'
import { filterLicenses, licenseIds, spdxLicenseOf } from './spdx-licenses'

const suggestions = {
  data: licenseIds,
  filter: filterLicenses,
  limit: 40,
  renderOption: ({ option }: { option: { value: string } }) => (
    <Text size="sm">
      {option.value}{' '}
      <Text span size="xs" c="dimmed">
        {spdxLicenseOf(option.value)?.name}
      </Text>
    </Text>
  ),
}

/**
 * The model's license, edited in place with the SPDX list offered as it is typed (by identifier or
 * name; the makers' usual licenses first) and any other text taken as it is. An SPDX identifier
 * shows as its full name, linked to its page on spdx.org; other text shows as written.
 */
export function LicenseField({
  license,
  onSave,
}: {
  license: string | null
  onSave: (value: string) => Promise<unknown>
}) {
  const spdx = license ? spdxLicenseOf(license) : undefined
  return (
    <InlineTextEdit
      label="License"
      value={license ?? ''}
      suggestions={suggestions}
      onSave={onSave}
      errorOf={problemMessage}
    >
      {spdx ? (
        <Text size="sm" style={{ flex: 1, overflowWrap: 'anywhere' }}>
          License:{' '}
          <Anchor
            size="sm"
            href={`https://spdx.org/licenses/${spdx.id}.html`}
            target="_blank"
            rel="noopener noreferrer"
            title={spdx.id}
          >
            {spdx.name}
          </Anchor>
        </Text>
      ) : license ? (
        <Text size="sm" style={{ flex: 1, overflowWrap: 'anywhere' }}>
          License: {license}
        </Text>
      ) : (
        <Text size="sm" c="dimmed" style={{ flex: 1 }}>
          No license yet.
        </Text>
      )}
    </InlineTextEdit>
  )
}
