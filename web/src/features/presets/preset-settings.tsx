import { Accordion, ScrollArea, Table, Text } from '@mantine/core'
import type { Profile } from './preset-kinds'

const sourceText: Record<string, string> = {
  manual: 'Made in the vault.',
  prusaslicer: 'Imported from PrusaSlicer.',
  cura: 'Imported from Cura.',
}

/** Every slicer setting the profile was imported with, folded away (a bundle holds hundreds). */
export function PresetSettings({ profile }: { profile: Profile }) {
  const settings = Object.entries(profile.settings).sort(([a], [b]) => a.localeCompare(b))
  return (
    <>
      <Text size="xs" c="dimmed">
        {sourceText[profile.source] ?? `Source: ${profile.source}.`} Changed{' '}
        {new Date(profile.updated_at).toLocaleString()}.
      </Text>
      {settings.length > 0 && (
        <Accordion variant="contained">
          <Accordion.Item value="settings">
            <Accordion.Control>Imported slicer settings ({settings.length})</Accordion.Control>
            <Accordion.Panel>
              <ScrollArea.Autosize mah={300}>
                <Table fz="xs" layout="fixed">
                  <Table.Tbody>
                    {settings.map(([key, value]) => (
                      <Table.Tr key={key}>
                        <Table.Th w="40%" style={{ wordBreak: 'break-all' }}>
                          {key}
                        </Table.Th>
                        <Table.Td style={{ wordBreak: 'break-all' }}>{value}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollArea.Autosize>
            </Accordion.Panel>
          </Accordion.Item>
        </Accordion>
      )}
    </>
  )
}
