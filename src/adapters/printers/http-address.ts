/** Why `address` is not a usable base URL of a printer's HTTP API, or null when it is. */
export function checkHttpAddress(address: string): string | null {
  if (!URL.canParse(address)) return 'must be an http:// or https:// URL'
  const url = new URL(address)
  if (!/^https?:$/.test(url.protocol)) return 'must be an http:// or https:// URL'
  if (url.username || url.password) return 'must not carry credentials; put them in `credentials`'
  return null
}
