import type { Client, FTPError } from 'basic-ftp'
import { PrinterError } from '../../../core/printers/provider.js'
import { bambuTls, type PeerCertificate, peerCertificate } from './bambu-tls.js'

export interface BambuFtpTarget {
  host: string
  port: number
  serial: string
  accessCode: string
  /** How long the connection may stay silent. */
  timeoutMs: number
}

/**
 * Runs `work` on an FTPS session with the printer's storage (implicit TLS, user `bblp`, the LAN
 * access code as password), then closes it. Every failure becomes a `PrinterError` that names no
 * credential: `auth` for a refused access code (530), `timeout`, `unreachable`, or `refused`.
 */
export async function withBambuFtp<T>(
  target: BambuFtpTarget,
  work: (client: Client, certificate: PeerCertificate | null) => Promise<T>,
): Promise<T> {
  // Loaded on first use: most installs have no Bambu printer.
  const ftp = await import('basic-ftp')
  const client = new ftp.Client(target.timeoutMs)
  try {
    await client.access({
      host: target.host,
      port: target.port,
      user: 'bblp',
      password: target.accessCode,
      secure: 'implicit',
      secureOptions: bambuTls(target.serial),
    })
    return await work(client, peerCertificate(client.ftp.socket as import('node:tls').TLSSocket))
  } catch (error) {
    throw ftpFailure(error, target, ftp.FTPError)
  } finally {
    client.close()
  }
}

function ftpFailure(error: unknown, target: BambuFtpTarget, ftpError: typeof FTPError): PrinterError {
  if (error instanceof PrinterError) return error
  if (error instanceof ftpError) {
    if (error.code === 530)
      return new PrinterError(
        'auth',
        "the printer refused the access code (FTP 530); read it again from the printer's screen",
      )
    return new PrinterError('refused', `the printer's storage answered FTP ${error.code}`)
  }
  const message = error instanceof Error ? error.message : ''
  if (/timeout/i.test(message)) return new PrinterError('timeout', `no answer within ${target.timeoutMs} ms on FTPS`)
  const code = (error as { code?: unknown })?.code
  const named = typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : ''
  return new PrinterError(
    'unreachable',
    `the printer's storage could not be reached on FTPS port ${target.port}${named}`,
  )
}
