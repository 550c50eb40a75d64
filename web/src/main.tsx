import '@mantine/core/styles.css'
import '@mantine/notifications/styles.css'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { routerBasename } from './api/base-url'
import { sessionStore } from './api/session'
import { App } from './app'
import { prefetchPage } from './pages'

/** Longest the first drawing waits for the opening page's data before drawing without it. */
const firstDataWaitMs = 500

const root = document.getElementById('root')
if (!root) throw new Error('index.html has no #root element')

// The page the app opens on starts its first call now (after the session restore this module's
// imports began), and the app is drawn once that answer is in: drawing the shell first would hold
// the main thread while the answers arrive, and then draw the page a second time with its data.
// A slow vault gets the shell (and the page's loading state) after `firstDataWaitMs`.
if (sessionStore.getState().status !== 'signed-out') {
  const { pathname, search } = window.location
  const firstData = prefetchPage(pathname.slice(routerBasename.length) || '/', new URLSearchParams(search))
  await Promise.race([firstData, new Promise((resolve) => setTimeout(resolve, firstDataWaitMs))])
}

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
