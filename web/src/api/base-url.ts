/**
 * Where the vault is, taken from the page's `<base href>` (written by the server: the mount prefix
 * or `VAULT_PUBLIC_URL`). The generated paths start with `/api/v1`, so the base goes without its
 * trailing slash.
 */
export const apiBaseUrl = new URL('.', document.baseURI).href.replace(/\/$/, '')

/** The router's basename: the path part of the same base (`''` at the root, `/vault` when mounted). */
export const routerBasename = new URL(document.baseURI).pathname.replace(/\/$/, '')
