import { Center, Loader, MantineProvider } from '@mantine/core'
import { Notifications } from '@mantine/notifications'
import { QueryClientProvider } from '@tanstack/react-query'
import { lazy, Suspense } from 'react'
import { ErrorBoundary } from 'react-error-boundary'
import { BrowserRouter, Outlet, Route, Routes, useLocation } from 'react-router'
import { routerBasename } from './api/base-url'
import { queryClient } from './api/query-client'
import { useLiveEvents } from './api/use-live-events'
import { useMe } from './api/use-me'
import { AnalysisIndicator } from './features/analysis/analysis-indicator'
import { ReplacePasswordPrompt } from './features/auth/replace-password-prompt'
import { RequireSession } from './features/auth/require-session'
import { useSignOut } from './features/auth/session-hooks'
import { SignInPage } from './features/auth/sign-in-page'
import { RestoreBanner } from './features/backups/restore-banner'
import { UploadIndicator } from './features/upload/upload-indicator'
import { navigationFor, pages } from './pages'
import { VaultShell } from './ui/app-shell'
import { NotFoundPage } from './ui/not-found-page'
import { PageError } from './ui/page-error'
import { cssVariablesResolver, theme } from './ui/theme'

// The window-wide drop target (react-dropzone) is only needed once a drag begins: it loads after the page.
const UploadAnywhere = lazy(() =>
  import('./features/upload/upload-anywhere').then((module) => ({ default: module.UploadAnywhere })),
)

/**
 * Providers, the sign-in page, and every page of `pages` inside the shell, behind a session. An
 * error anywhere shows `PageError`, never a white page: inside the shell for a page (the
 * navigation stays), around everything for the rest.
 */
export function App() {
  return (
    <MantineProvider theme={theme} defaultColorScheme="auto" cssVariablesResolver={cssVariablesResolver}>
      <Notifications />
      <ErrorBoundary FallbackComponent={PageError}>
        <QueryClientProvider client={queryClient}>
          <BrowserRouter basename={routerBasename}>
            <Routes>
              <Route path="/sign-in" element={<SignInPage />} />
              <Route
                element={
                  <RequireSession>
                    <SignedIn />
                  </RequireSession>
                }
              >
                {pages.map((page) => (
                  <Route key={page.path} path={page.path} element={page.element} />
                ))}
                <Route path="*" element={<NotFoundPage />} />
              </Route>
            </Routes>
          </BrowserRouter>
        </QueryClientProvider>
      </ErrorBoundary>
    </MantineProvider>
  )
}

function SignedIn() {
  const { pathname } = useLocation()
  const me = useMe()
  const signOut = useSignOut()
  const user = me.data?.user
  useLiveEvents()
  return (
    <VaultShell
      nav={navigationFor(user?.role ?? 'user')}
      user={user}
      onSignOut={signOut}
      status={
        <>
          <AnalysisIndicator />
          <UploadIndicator />
        </>
      }
    >
      <RestoreBanner />
      {/* Only a convenience: if its code cannot load, the page goes on without it. */}
      <ErrorBoundary fallback={null}>
        <Suspense fallback={null}>
          <UploadAnywhere />
        </Suspense>
      </ErrorBoundary>
      {/* A failed page clears when another one is opened. */}
      <ErrorBoundary FallbackComponent={PageError} resetKeys={[pathname]}>
        {/* Pages loaded with lazy() in pages.tsx show this while their code arrives. */}
        <Suspense
          fallback={
            <Center mih={200}>
              <Loader aria-label="Loading the page" />
            </Center>
          }
        >
          <Outlet />
        </Suspense>
      </ErrorBoundary>
      <ReplacePasswordPrompt />
    </VaultShell>
  )
}
