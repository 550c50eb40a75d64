import { AppShell, Burger, Group, NavLink, ScrollArea, Title } from '@mantine/core'
import { useDisclosure } from '@mantine/hooks'
import type { Icon } from '@tabler/icons-react'
import type { ReactNode } from 'react'
import { NavLink as RouterNavLink, useLocation } from 'react-router'
import { ColorSchemeToggle } from './color-scheme-toggle'
import { SkipLink } from './skip-link'
import { type ShellUser, UserMenu } from './user-menu'

/** One entry of the navigation; `children` make a group (Settings → Storage, Access). */
export interface NavEntry {
  label: string
  icon: Icon
  /** Router path; absent for a group. */
  path?: string
  children?: NavEntry[]
}

/** The page's `<main>`, where "Skip to content" sends the focus. */
const mainId = 'main-content'

/**
 * The frame of every signed-in page: a "Skip to content" link first, a header with the user menu,
 * the navigation (a drawer below the `sm` breakpoint, behind the burger) and the page.
 */
export function VaultShell(props: {
  nav: NavEntry[]
  user: ShellUser | undefined
  onSignOut: () => void
  /** Shown in the header before the user menu (the analysis and the uploads under way). */
  status?: ReactNode
  children: ReactNode
}) {
  const [opened, { toggle, close }] = useDisclosure()
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 240, breakpoint: 'sm', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <SkipLink targetId={mainId} />
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Toggle navigation" />
            <Title order={2} size="h4">
              model-vault
            </Title>
          </Group>
          <Group gap="md" wrap="nowrap">
            {props.status}
            <ColorSchemeToggle />
            {props.user && <UserMenu user={props.user} onSignOut={props.onSignOut} />}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        <ScrollArea>
          {props.nav.map((entry) => (
            <NavItem key={entry.label} entry={entry} onNavigate={close} />
          ))}
        </ScrollArea>
      </AppShell.Navbar>
      {/* Focusable by script only (the skip link), never a Tab stop of its own. */}
      <AppShell.Main id={mainId} tabIndex={-1}>
        {props.children}
      </AppShell.Main>
    </AppShell>
  )
}

function NavItem({ entry, onNavigate }: { entry: NavEntry; onNavigate: () => void }) {
  const { pathname } = useLocation()
  const icon = <entry.icon size={18} stroke={1.5} aria-hidden />
  if (entry.children) {
    const active = entry.children.some((child) => child.path && pathname.startsWith(child.path))
    return (
      <NavLink component="button" label={entry.label} leftSection={icon} defaultOpened={active} childrenOffset="md">
        {entry.children.map((child) => (
          <NavItem key={child.label} entry={child} onNavigate={onNavigate} />
        ))}
      </NavLink>
    )
  }
  return (
    <NavLink
      component={RouterNavLink}
      to={entry.path ?? '/'}
      end={entry.path === '/'}
      label={entry.label}
      leftSection={icon}
      onClick={onNavigate}
    />
  )
}
