import { Alert, Button, Group, Loader, Stack, TextInput } from '@mantine/core'
import { useDebouncedValue } from '@mantine/hooks'
import { IconPlus, IconSearch } from '@tabler/icons-react'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { PresetEditor } from './preset-editor'
import { PresetImport } from './preset-import'
import { type PresetKind, type Profile, presetKinds } from './preset-kinds'
import { PresetTable } from './preset-table'
import { usePresetList } from './use-presets'

/** The profiles of one kind: search, the list, and (for admins) create and import. */
export function PresetTab({ kind, canEdit }: { kind: PresetKind; canEdit: boolean }) {
  const info = presetKinds[kind]
  const [search, setSearch] = useState('')
  const [debounced] = useDebouncedValue(search.trim(), 250)
  const list = usePresetList(kind, debounced)
  /** The profile open in the editor, `new` for one being made, or none. */
  const [open, setOpen] = useState<Profile | 'new' | undefined>()
  return (
    <Stack>
      {canEdit && <PresetImport kind={kind} />}
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label={`Search ${info.title.toLowerCase()} profiles`}
          placeholder="Part of the name"
          leftSection={<IconSearch size={16} aria-hidden />}
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
          style={{ flex: 1, minWidth: 200 }}
        />
        {canEdit && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setOpen('new')}>
            New {info.title.toLowerCase()} profile
          </Button>
        )}
      </Group>
      {list.isPending && <Loader size="sm" aria-label="Loading profiles" />}
      {list.isError && (
        <Alert color="red" role="alert" title="Profiles not loaded">
          {problemMessage(list.error)}
        </Alert>
      )}
      {list.data && <PresetTable kind={kind} profiles={list.data} search={debounced} onOpen={setOpen} />}
      {open && (
        <PresetEditor
          kind={kind}
          profile={open === 'new' ? undefined : open}
          canEdit={canEdit}
          onClose={() => setOpen(undefined)}
        />
      )}
    </Stack>
  )
}
