import { Anchor, Stack, Text } from '@mantine/core'
import { problemMessage } from '../../api/problem'
import { InlineTextEdit } from './inline-text-edit'
import { LicenseField } from './license-field'
import type { UpdateModel } from './types'

interface MakerFieldsProps {
  creator: string | null
  sourceUrl: string | null
  license: string | null
  onSave: (change: UpdateModel) => Promise<unknown>
}

/** Who designed the model, where it came from and its license (see LicenseField), each editable; empty clears it. */
export function MakerFields({ creator, sourceUrl, license, onSave }: MakerFieldsProps) {
  const none = (what: string) => (
    <Text size="sm" c="dimmed" style={{ flex: 1 }}>
      No {what} yet.
    </Text>
  )
  return (
    <Stack gap={4}>
      <InlineTextEdit
        label="Designer"
        value={creator ?? ''}
        onSave={(value) => onSave({ creator: value })}
        errorOf={problemMessage}
      >
        {creator ? (
          <Text size="sm" style={{ flex: 1, overflowWrap: 'anywhere' }}>
            By {creator}
          </Text>
        ) : (
          none('designer')
        )}
      </InlineTextEdit>
      <InlineTextEdit
        label="Source"
        value={sourceUrl ?? ''}
        onSave={(value) => onSave({ source_url: value })}
        errorOf={problemMessage}
      >
        {sourceUrl ? (
          <Anchor
            size="sm"
            href={sourceUrl}
            target="_blank"
            rel="noopener noreferrer nofollow"
            style={{ flex: 1, overflowWrap: 'anywhere' }}
          >
            {sourceUrl}
          </Anchor>
        ) : (
          none('source')
        )}
      </InlineTextEdit>
      <LicenseField license={license} onSave={(value) => onSave({ license: value })} />
    </Stack>
  )
}
