import '@mantine/core/styles.css'
import '@mantine/notifications/styles.css'
import { StrictMode, startTransition } from 'react'
import { createRoot } from 'react-dom/client'
import { routerBasename } from './api/base-url'
import { sessionStore } from './api/session'
import { App } from './app'
import { prefetchPage } from './pages'

if (sessionStore.getState().status !== 'signed-out') {
  const { pathname, search } = window.location
  prefetchPage(pathname.slice(routerBasename.length) || '/', new URLSearchParams(search))
}

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')
// A transition draws the first page in slices, so the session restore this module's imports began
// (a Web Lock, then the refresh call) goes out while the page is drawn, not after it.
startTransition(() => {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  )
})
