import { Group, Stack, Text } from '@mantine/core'
import { IconFolder } from '@tabler/icons-react'
import type { ReactNode } from 'react'
import { FileCard } from './file-card'
import type { ModelFile } from './types'

/** Files by the folder they sit in inside the model: the top first, then each folder by path, each file in its tree order. */
export function foldersOf(files: ModelFile[]): [string, ModelFile[]][] {
  const byFolder = new Map<string, ModelFile[]>()
  for (const file of files) byFolder.set(file.folder, [...(byFolder.get(file.folder) ?? []), file])
  return [...byFolder.entries()].sort(([a], [b]) => (a === b ? 0 : a === '' ? -1 : b === '' ? 1 : a.localeCompare(b)))
}

/** The model's parts as a tree of folders: a heading per folder (indented by its depth), its files' cards below. */
export function FileTree({ files, actions }: { files: ModelFile[]; actions?: (file: ModelFile) => ReactNode }) {
  return (
    <Stack gap="sm">
      {foldersOf(files).map(([folder, inFolder]) => (
        <Stack
          key={folder}
          gap="sm"
          component="section"
          aria-label={folder ? `Folder ${folder}` : 'Top folder'}
          pl={folder ? Math.min(folder.split('/').length, 4) * 12 : 0}
        >
          {folder && (
            <Group gap={6}>
              <IconFolder size={18} aria-hidden />
              <Text fw={600} size="sm" style={{ overflowWrap: 'anywhere' }}>
                {folder}
              </Text>
            </Group>
          )}
          {inFolder.map((file) => (
            <FileCard key={file.id} file={file} actions={actions?.(file)} />
          ))}
        </Stack>
      ))}
    </Stack>
  )
}
