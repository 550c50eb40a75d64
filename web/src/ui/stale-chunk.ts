/**
 * Whether an error is a page's code that could not be loaded: after an upgrade the old page asks
 * for chunks the server no longer has, or the network dropped the request. Browsers word it
 * differently (Chromium, Firefox, Safari), and Vite's preloader adds its own.
 */
export function isStaleChunk(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error)
  return /dynamically imported module|module script failed|Unable to preload CSS|error loading dynamically imported/i.test(
    message,
  )
}
