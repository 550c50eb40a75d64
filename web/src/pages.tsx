import {
  type Icon,
  IconBell,
  IconBooks,
  IconBuildingFactory2,
  IconDatabase,
  IconFolders,
  IconKey,
  IconLayoutDashboard,
  IconPhotoScan,
  IconPrinter,
  IconSettings,
  IconStack2,
  IconUpload,
  IconUsers,
} from '@tabler/icons-react'
import { lazy, type ReactNode } from 'react'
import { matchPath } from 'react-router'
import { isPrintReady } from './api/print-ready'
import { queryClient } from './api/query-client'
import type { components } from './api/schema'
import { LibraryPage } from './features/library/library-page'
import { parseLibraryQuery } from './features/library/library-query'
import { modelsQuery } from './features/library/use-models'
import type { NavEntry } from './ui/app-shell'

// Every page but the library loads its code when first opened: the library route's first load stays small
// (three.js, charts and each page's own code arrive on demand).
const AnalysisPage = lazy(() =>
  import('./features/analysis/analysis-page').then((module) => ({ default: module.AnalysisPage })),
)
const AccessPage = lazy(() =>
  import('./features/access/access-page').then((module) => ({ default: module.AccessPage })),
)
const StoragePage = lazy(() =>
  import('./features/backups/storage-page').then((module) => ({ default: module.StoragePage })),
)
const CollectionsPage = lazy(() =>
  import('./features/collections/collections-page').then((module) => ({ default: module.CollectionsPage })),
)
const AddToQueueButton = lazy(() =>
  import('./features/farm/add-to-queue-button').then((module) => ({ default: module.AddToQueueButton })),
)
const BedClearButton = lazy(() =>
  import('./features/printers/bed-clear-button').then((module) => ({ default: module.BedClearButton })),
)
const PrintControls = lazy(() =>
  import('./features/printers/print-controls').then((module) => ({ default: module.PrintControls })),
)
const FarmPage = lazy(() => import('./features/farm/farm-page').then((module) => ({ default: module.FarmPage })))
const MergeSuggestionsNotice = lazy(() =>
  import('./features/merge-suggestions/merge-suggestions-notice').then((module) => ({
    default: module.MergeSuggestionsNotice,
  })),
)
const MergeSuggestionsPage = lazy(() =>
  import('./features/merge-suggestions/merge-suggestions-page').then((module) => ({
    default: module.MergeSuggestionsPage,
  })),
)
const ModelPage = lazy(() => import('./features/model/model-page').then((module) => ({ default: module.ModelPage })))
const NotificationsPage = lazy(() =>
  import('./features/notifications/notifications-page').then((module) => ({ default: module.NotificationsPage })),
)
const OverviewPage = lazy(() =>
  import('./features/overview/overview-page').then((module) => ({ default: module.OverviewPage })),
)
const PresetsPage = lazy(() =>
  import('./features/presets/presets-page').then((module) => ({ default: module.PresetsPage })),
)
const PrinterPage = lazy(() =>
  import('./features/printers/printer-page').then((module) => ({ default: module.PrinterPage })),
)
const PrinterLiveStatus = lazy(() =>
  import('./features/printers/printer-live-status').then((module) => ({ default: module.PrinterLiveStatus })),
)
const PrintersPage = lazy(() =>
  import('./features/printers/printers-page').then((module) => ({ default: module.PrintersPage })),
)
const SendToPrinterButton = lazy(() =>
  import('./features/printers/send-to-printer-button').then((module) => ({ default: module.SendToPrinterButton })),
)
const AddFilesToModel = lazy(() =>
  import('./features/upload/add-files-to-model').then((module) => ({ default: module.AddFilesToModel })),
)
const UploadPage = lazy(() =>
  import('./features/upload/upload-page').then((module) => ({ default: module.UploadPage })),
)
const UsersPage = lazy(() => import('./features/users/users-page').then((module) => ({ default: module.UsersPage })))

type Role = components['schemas']['User']['role']

/**
 * The route table of the signed-in app. A page with a `label` also appears in the navigation (in
 * table order; `group` nests it under a heading); `minRole` hides its entry from lesser roles (the
 * API enforces the role either way).
 */
export interface Page {
  path: string
  element: ReactNode
  /** Starts the page's first data call when the app opens on this page; settles when its answer is in. */
  prefetch?: (search: URLSearchParams) => Promise<void>
  label?: string
  icon?: Icon
  group?: 'Settings'
  minRole?: Role
}

export const pages: Page[] = [
  {
    path: '/',
    label: 'Overview',
    icon: IconLayoutDashboard,
    element: <OverviewPage notices={<MergeSuggestionsNotice />} />,
  },
  {
    path: '/library',
    label: 'Library',
    icon: IconBooks,
    element: <LibraryPage />,
    prefetch: (search) => queryClient.prefetchInfiniteQuery(modelsQuery(parseLibraryQuery(search))),
  },
  { path: '/library/merge-suggestions', element: <MergeSuggestionsPage /> },
  {
    path: '/models/:id',
    element: (
      <ModelPage
        renderFileActions={(file) =>
          isPrintReady(file) && (
            <>
              <SendToPrinterButton fileId={file.id} fileName={file.name} />
              <AddToQueueButton file={file} />
            </>
          )
        }
        renderAddFiles={(model) => <AddFilesToModel modelId={model.id} modelName={model.name} />}
      />
    ),
  },
  { path: '/upload', label: 'Upload', icon: IconUpload, element: <UploadPage /> },
  { path: '/collections', label: 'Collections', icon: IconFolders, element: <CollectionsPage /> },
  { path: '/printers', label: 'Printers', icon: IconPrinter, element: <PrintersPage /> },
  { path: '/printers/:id', element: <PrinterPage /> },
  {
    path: '/farm',
    label: 'Farm',
    icon: IconBuildingFactory2,
    element: (
      <FarmPage
        renderPrinterStatus={(printer) => (
          <>
            <PrinterLiveStatus name={printer.name} status={printer.status} />
            <PrintControls printer={printer} />
            {/* The queue sends nothing onto a finished print nobody took off, whatever the printer's own setting. */}
            <BedClearButton printer={printer} always />
          </>
        )}
      />
    ),
  },
  { path: '/presets', label: 'Presets', icon: IconStack2, element: <PresetsPage /> },
  {
    path: '/settings/storage',
    label: 'Storage',
    icon: IconDatabase,
    group: 'Settings',
    minRole: 'admin',
    element: <StoragePage />,
  },
  {
    path: '/settings/access',
    label: 'Access',
    icon: IconKey,
    group: 'Settings',
    element: <AccessPage />,
  },
  {
    path: '/settings/notifications',
    label: 'Notifications',
    icon: IconBell,
    group: 'Settings',
    element: <NotificationsPage />,
  },
  {
    path: '/settings/analysis',
    label: 'Analysis',
    icon: IconPhotoScan,
    group: 'Settings',
    element: <AnalysisPage />,
  },
  {
    path: '/users',
    label: 'Users',
    icon: IconUsers,
    minRole: 'superuser',
    element: <UsersPage />,
  },
]

/**
 * Render-as-you-fetch for the page the app opens on (a bookmark, a reload): its first call goes out
 * as soon as the session allows, not after the shell and the page have been drawn. `pathname` is
 * the router's (without the mount prefix). Settles when the answer is in (at once for a page
 * without a first call); a failed call settles it too (the page shows the error).
 */
export function prefetchPage(pathname: string, search: URLSearchParams): Promise<void> {
  return pages.find((page) => matchPath(page.path, pathname))?.prefetch?.(search) ?? Promise.resolve()
}

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
