/**
 * Where a Bambu Lab printer in LAN mode listens: MQTT over TLS on 8883 for status and commands,
 * FTPS (implicit TLS) on 990 for files. Its address is its IP address or host name; the URL form
 * `bambu://host?mqtt_port=…&ftp_port=…` reaches it through other ports (a tunnel, a port forward).
 */
export interface BambuAddress {
  host: string
  mqttPort: number
  ftpPort: number
}

export const bambuMqttPort = 8883
export const bambuFtpPort = 990

const port = (value: string | null, fallback: number): number | null => {
  if (value === null) return fallback
  const parsed = Number(value)
  return Number.isInteger(parsed) && parsed > 0 && parsed < 65536 ? parsed : null
}

/** The printer's host and ports, or a sentence saying what is wrong with the address. */
export function parseBambuAddress(address: string): BambuAddress | string {
  const text = address.trim()
  const asUrl = /^bambu:\/\//i.test(text) ? text : /^[\w.-]+$|^\[[\da-f:]+\]$/i.test(text) ? `bambu://${text}` : null
  if (asUrl === null || !URL.canParse(asUrl))
    return "must be the printer's IP address or host name (e.g. 192.168.1.40), or bambu://host?mqtt_port=8883&ftp_port=990"
  const url = new URL(asUrl)
  if (url.username || url.password) return 'must not carry credentials; put them in `credentials`'
  if (url.port || (url.pathname !== '' && url.pathname !== '/'))
    return 'takes ports as ?mqtt_port=…&ftp_port=…, and no path'
  const mqttPort = port(url.searchParams.get('mqtt_port'), bambuMqttPort)
  const ftpPort = port(url.searchParams.get('ftp_port'), bambuFtpPort)
  if (mqttPort === null || ftpPort === null) return 'mqtt_port and ftp_port must be port numbers (1 to 65535)'
  return { host: url.hostname.replace(/^\[|\]$/g, ''), mqttPort, ftpPort }
}
