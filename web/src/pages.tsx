import {
  type Icon,
  IconBooks,
  IconDatabase,
  IconFolders,
  IconKey,
  IconLayoutDashboard,
  IconPrinter,
  IconSettings,
  IconStack2,
  IconUpload,
  IconUsers,
} from '@tabler/icons-react'
import type { ReactNode } from 'react'
import type { components } from './api/schema'
import { LibraryPage } from './features/library/library-page'
import { ModelPage } from './features/model/model-page'
import { OverviewPage } from './features/overview/overview-page'
import type { NavEntry } from './ui/app-shell'
import { PlaceholderPage } from './ui/placeholder-page'

type Role = components['schemas']['User']['role']

/**
 * The route table of the signed-in app. A page with a `label` also appears in the navigation (in
 * table order; `group` nests it under a heading); `minRole` hides its entry from lesser roles (the
 * API enforces the role either way).
 */
export interface Page {
  path: string
  element: ReactNode
  label?: string
  icon?: Icon
  group?: 'Settings'
  minRole?: Role
}

export const pages: Page[] = [
  { path: '/', label: 'Overview', icon: IconLayoutDashboard, element: <OverviewPage /> },
  { path: '/library', label: 'Library', icon: IconBooks, element: <LibraryPage /> },
  { path: '/models/:id', element: <ModelPage /> },
  { path: '/upload', label: 'Upload', icon: IconUpload, element: <PlaceholderPage title="Upload" /> },
  { path: '/collections', label: 'Collections', icon: IconFolders, element: <PlaceholderPage title="Collections" /> },
  { path: '/printers', label: 'Printers', icon: IconPrinter, element: <PlaceholderPage title="Printers" /> },
  { path: '/presets', label: 'Presets', icon: IconStack2, element: <PlaceholderPage title="Presets" /> },
  {
    path: '/settings/storage',
    label: 'Storage',
    icon: IconDatabase,
    group: 'Settings',
    minRole: 'admin',
    element: <PlaceholderPage title="Storage" />,
  },
  {
    path: '/settings/access',
    label: 'Access',
    icon: IconKey,
    group: 'Settings',
    element: <PlaceholderPage title="Access" />,
  },
  {
    path: '/users',
    label: 'Users',
    icon: IconUsers,
    minRole: 'superuser',
    element: <PlaceholderPage title="Users" />,
  },
]

const groupIcons: Record<NonNullable<Page['group']>, Icon> = { Settings: IconSettings }
const roleRank: Record<Role, number> = { user: 0, admin: 1, superuser: 2 }

/** The navigation a user of `role` sees. */
export function navigationFor(role: Role): NavEntry[] {
  const nav: NavEntry[] = []
  for (const page of pages) {
    if (!page.label || !page.icon || roleRank[role] < roleRank[page.minRole ?? 'user']) continue
    const entry = { label: page.label, icon: page.icon, path: page.path }
    if (!page.group) {
      nav.push(entry)
      continue
    }
    let group = nav.find((candidate) => candidate.label === page.group)
    if (!group) {
      group = { label: page.group, icon: groupIcons[page.group], children: [] }
      nav.push(group)
    }
    group.children?.push(entry)
  }
  return nav
}
