import { Anchor, Badge, ColorSwatch, Group, Table, Text } from '@mantine/core'
import { fieldText, hexColor, type PresetKind, type Profile, presetKinds } from './preset-kinds'

const sourceLabel: Record<string, string> = { manual: 'Made here', prusaslicer: 'PrusaSlicer', cura: 'Cura' }

/** The profiles as a table; a profile's name opens it. */
export function PresetTable(props: {
  kind: PresetKind
  profiles: Profile[]
  search: string
  onOpen: (profile: Profile) => void
}) {
  const info = presetKinds[props.kind]
  const columns = info.columns.flatMap((key) => info.fields.filter((field) => field.key === key))
  if (props.profiles.length === 0) {
    return (
      <Text c="dimmed">
        {props.search
          ? `No ${info.title.toLowerCase()} profile has “${props.search}” in its name.`
          : `No ${info.title.toLowerCase()} profiles yet. Import ${info.importFormats}, or make one.`}
      </Text>
    )
  }
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped highlightOnHover>
        <Table.Caption>
          {props.profiles.length} {info.title.toLowerCase()} profile{props.profiles.length === 1 ? '' : 's'}
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            {columns.map((field) => (
              <Table.Th key={field.key}>{field.label}</Table.Th>
            ))}
            <Table.Th>Source</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {props.profiles.map((profile) => (
            <Table.Tr key={profile.id}>
              <Table.Td>
                <Anchor component="button" type="button" onClick={() => props.onOpen(profile)} ta="left">
                  {profile.name}
                </Anchor>
              </Table.Td>
              {columns.map((field) => (
                <Table.Td key={field.key}>
                  <Group gap={6} wrap="nowrap">
                    {field.key === 'color' && hexColor(fieldText(profile, field)) && (
                      <ColorSwatch color={fieldText(profile, field)} size={14} aria-hidden />
                    )}
                    {fieldText(profile, field)}
                  </Group>
                </Table.Td>
              ))}
              <Table.Td>
                <Badge variant="light" color="gray">
                  {sourceLabel[profile.source] ?? profile.source}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  )
}
