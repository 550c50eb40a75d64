import '@mantine/dropzone/styles.css'
import { Alert, Button, FileButton, Group, List, Paper, Stack, Text } from '@mantine/core'
import { Dropzone } from '@mantine/dropzone'
import { IconFileImport, IconUpload } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { type PresetKind, presetKinds } from './preset-kinds'
import { useImportPresets } from './use-presets'

const shownNames = 12

/**
 * Import a slicer's file by dropping it or choosing it: then what was created and updated, or
 * the vault's reason for refusing the file.
 */
export function PresetImport({ kind }: { kind: PresetKind }) {
  const info = presetKinds[kind]
  const importer = useImportPresets(kind)
  const [fileName, setFileName] = useState('')
  const start = (file: File | null | undefined) => {
    if (!file) return
    setFileName(file.name)
    importer.mutate(file)
  }
  const result = importer.data
  return (
    <Paper withBorder p={0}>
      <Dropzone
        onDrop={(files) => start(files[0])}
        multiple={false}
        activateOnClick={false}
        loading={importer.isPending}
        p="md"
        style={{ border: 'none' }}
        inputProps={{ 'aria-label': `Drop a ${info.title.toLowerCase()} preset file` }}
      >
        <Group wrap="nowrap" gap="md" style={{ pointerEvents: 'all' }}>
          <IconFileImport size={36} stroke={1.5} aria-hidden />
          <Stack gap={6} style={{ flex: 1 }}>
            <Text size="sm">
              Import {info.title.toLowerCase()} profiles: drop {info.importFormats} here. Profiles with the same name
              are replaced.
            </Text>
            <FileButton onChange={start} accept=".ini,.fdm_material,.xml,text/plain,application/xml">
              {(buttonProps) => (
                <Button
                  {...buttonProps}
                  size="xs"
                  variant="light"
                  leftSection={<IconUpload size={14} aria-hidden />}
                  w="fit-content"
                >
                  Choose a file
                </Button>
              )}
            </FileButton>
          </Stack>
        </Group>
      </Dropzone>
      {importer.isError && (
        <Alert color="red" role="alert" title={`${fileName} not imported`} m="md" mt={0}>
          {problemMessage(importer.error)}
        </Alert>
      )}
      {result && (
        <Alert color="green" role="status" title={`${fileName} imported`} m="md" mt={0}>
          <Text size="sm">
            {result.created} created, {result.updated} updated.
          </Text>
          <List size="sm" mt={4}>
            {result.items.slice(0, shownNames).map((item) => (
              <List.Item key={item.id}>
                {item.name} ({item.created ? 'new' : 'updated'})
              </List.Item>
            ))}
          </List>
          {result.items.length > shownNames && (
            <Text size="sm" mt={4}>
              and {result.items.length - shownNames} more.
            </Text>
          )}
        </Alert>
      )}
    </Paper>
  )
}
