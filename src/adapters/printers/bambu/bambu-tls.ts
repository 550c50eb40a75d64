import type { ConnectionOptions, TLSSocket } from 'node:tls'

/**
 * TLS to a Bambu printer. Its certificate is issued to its serial number by Bambu Lab's own CA
 * (older firmware: self-signed), which no public CA vouches for and which names no IP address, so
 * it cannot be verified the usual way. These options accept it for the two connections to the
 * printer's configured address only (its MQTT and FTPS ports), never as a process-wide setting;
 * the certificate's subject and fingerprint are kept so diagnostics can show them and say when the
 * subject is not the serial number.
 */
export const bambuTls = (serial: string) =>
  ({
    rejectUnauthorized: false,
    // Bambu's certificates are issued to the serial number, which clients send as the server name.
    servername: serial,
    minVersion: 'TLSv1.2',
  }) as const satisfies ConnectionOptions

export interface PeerCertificate {
  subject: string | null
  issuer: string | null
  fingerprint256: string
}

export function peerCertificate(socket: TLSSocket | undefined): PeerCertificate | null {
  const certificate = socket?.getPeerCertificate?.()
  if (!certificate?.fingerprint256) return null
  return {
    subject: [certificate.subject?.CN ?? []].flat()[0] ?? null,
    issuer: [certificate.issuer?.CN ?? []].flat()[0] ?? null,
    fingerprint256: certificate.fingerprint256,
  }
}
