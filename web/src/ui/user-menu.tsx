import { Group, Menu, Text, UnstyledButton, useMantineColorScheme } from '@mantine/core'
import { IconBook, IconChevronDown, IconDeviceDesktop, IconLogout, IconUserCircle } from '@tabler/icons-react'

export interface ShellUser {
  username: string
  role: string
}

/** The API reference (Swagger UI) beside the UI, under the vault's mount point. */
const apiReferenceUrl = new URL('docs', document.baseURI).href

/**
 * Who is signed in, the API reference, following the system's colour scheme again once one was
 * chosen (`ColorSchemeToggle`), and signing out.
 */
export function UserMenu({ user, onSignOut }: { user: ShellUser; onSignOut: () => void }) {
  const { colorScheme, setColorScheme } = useMantineColorScheme()
  return (
    <Menu position="bottom-end" withinPortal withInitialFocusPlaceholder={false}>
      <Menu.Target>
        <UnstyledButton aria-label={`Account: ${user.username}`}>
          <Group gap={6} wrap="nowrap">
            <IconUserCircle size={22} stroke={1.5} aria-hidden />
            <Text size="sm" visibleFrom="xs">
              {user.username}
            </Text>
            <IconChevronDown size={14} aria-hidden />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>
          Signed in as {user.username} ({user.role})
        </Menu.Label>
        <Menu.Item
          component="a"
          href={apiReferenceUrl}
          target="_blank"
          rel="noopener"
          leftSection={<IconBook size={16} aria-hidden />}
        >
          API reference
        </Menu.Item>
        {colorScheme !== 'auto' && (
          <Menu.Item leftSection={<IconDeviceDesktop size={16} aria-hidden />} onClick={() => setColorScheme('auto')}>
            Follow the system's colour scheme
          </Menu.Item>
        )}
        <Menu.Divider />
        <Menu.Item leftSection={<IconLogout size={16} aria-hidden />} onClick={onSignOut}>
          Sign out
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  )
}
