import { ActionIcon, useComputedColorScheme, useMantineColorScheme } from '@mantine/core'
import { IconMoon, IconSun } from '@tabler/icons-react'

/**
 * Switches between light and dark. The UI follows the system until this is used; the choice is
 * then remembered in this browser (Mantine keeps it in localStorage), and the account menu offers
 * to follow the system again.
 */
export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme()
  const dark = useComputedColorScheme('light') === 'dark'
  return (
    <ActionIcon
      variant="subtle"
      color="gray"
      size="lg"
      aria-label={dark ? 'Use the light colour scheme' : 'Use the dark colour scheme'}
      onClick={() => setColorScheme(dark ? 'light' : 'dark')}
    >
      {dark ? <IconSun size={20} stroke={1.5} aria-hidden /> : <IconMoon size={20} stroke={1.5} aria-hidden />}
    </ActionIcon>
  )
}
