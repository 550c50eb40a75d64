import { Stack, Tabs, Text, Title } from '@mantine/core'
import { IconPrinter, IconSpiral } from '@tabler/icons-react'
import { useSearchParams } from 'react-router'
import { useIsAdmin } from '../../api/use-me'
import { PresetTab } from './preset-tab'

/** Filament and printer profiles, one tab each (`?tab=printer` opens the second). */
export function PresetsPage() {
  const [params, setParams] = useSearchParams()
  const tab = params.get('tab') === 'printer' ? 'printer' : 'filament'
  const canEdit = useIsAdmin()
  return (
    <Stack>
      <Title order={1}>Presets</Title>
      <Text c="dimmed" size="sm">
        Slicer profiles kept with the library; G-code files link to the profiles they were sliced with by name.
        {canEdit ? '' : ' Only admins can change them.'}
      </Text>
      <Tabs
        value={tab}
        onChange={(value) => setParams(value === 'printer' ? { tab: 'printer' } : {}, { replace: true })}
      >
        <Tabs.List>
          <Tabs.Tab value="filament" leftSection={<IconSpiral size={16} aria-hidden />}>
            Filament
          </Tabs.Tab>
          <Tabs.Tab value="printer" leftSection={<IconPrinter size={16} aria-hidden />}>
            Printer
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="filament" pt="md">
          {tab === 'filament' && <PresetTab kind="filament" canEdit={canEdit} />}
        </Tabs.Panel>
        <Tabs.Panel value="printer" pt="md">
          {tab === 'printer' && <PresetTab kind="printer" canEdit={canEdit} />}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  )
}
