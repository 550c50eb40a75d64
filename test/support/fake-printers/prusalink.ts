import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { type CommonBehaviour, type FakePrinter, startFake } from './fake-server.js'

export type PrusaLinkBehaviour = CommonBehaviour

/** PrusaLink v1 with HTTP Digest (realm "Printer API", no qop, as the Buddy firmware answers). */
export function fakePrusaLink(user?: { username: string; password: string }): Promise<FakePrinter<PrusaLinkBehaviour>> {
  const nonce = createHash('md5').update(String(Math.random())).digest('hex')
  const realm = 'Printer API'
  const authorize = (req: IncomingMessage) => {
    if (!user) return null
    const header = req.headers.authorization ?? ''
    const fields = Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    const md5 = (v: string) => createHash('md5').update(v).digest('hex')
    const expected = md5(
      `${md5(`${user.username}:${realm}:${user.password}`)}:${nonce}:${md5(`${req.method}:${fields.uri}`)}`,
    )
    if (
      header.startsWith('Digest ') &&
      fields.username === user.username &&
      fields.nonce === nonce &&
      fields.response === expected
    )
      return null
    return { status: 401, headers: { 'WWW-Authenticate': `Digest realm="${realm}", nonce="${nonce}", stale=false` } }
  }
  return startFake<PrusaLinkBehaviour>((req, url, body, fake) => {
    const path = decodeURIComponent(url.pathname)
    const printing = fake.state.printing
    if (path === '/api/version')
      return {
        status: 200,
        json: { api: '2.0.0', server: '2.1.2', text: 'PrusaLink', hostname: 'mk4', firmware: '6.1.3' },
      }
    if (path === '/api/v1/info')
      return { status: 200, json: { nozzle_diameter: 0.4, hostname: 'mk4', serial: 'SN123' } }
    if (path === '/api/v1/storage')
      return {
        status: 200,
        json: { storage_list: [{ name: 'usb', type: 'USB', path: '/usb/', read_only: false, available: true }] },
      }
    if (path === '/api/v1/status') {
      return {
        status: 200,
        json: {
          printer: {
            state: printing ? 'PRINTING' : 'IDLE',
            temp_nozzle: 214.9,
            target_nozzle: printing ? 215 : 0,
            temp_bed: 59.7,
            target_bed: printing ? 60 : 0,
          },
          ...(printing ? { job: { id: 7, progress: 12, time_remaining: 3000, time_printing: 400 } } : {}),
          storage: { path: '/usb/', name: 'usb', read_only: false },
        },
      }
    }
    if (path === '/api/v1/job') {
      if (!printing) return { status: 204 }
      return {
        status: 200,
        json: {
          id: 7,
          state: 'PRINTING',
          progress: 12,
          time_remaining: 3000,
          time_printing: 400,
          file: { name: printing, display_name: printing, path: '/usb' },
        },
      }
    }
    const file = /^\/api\/v1\/files\/usb\/(.+)$/.exec(path)
    if (file && req.method === 'PUT') {
      fake.files.set(file[1]!, body.length)
      if (req.headers['print-after-upload'] === '?1' && !fake.behaviour.silentStart) fake.state.printing = file[1]!
      return { status: 201 }
    }
    if (file && req.method === 'POST') {
      if (fake.behaviour.refuseStart || !fake.files.has(file[1]!))
        return { status: 409, json: { title: 'Conflict', message: 'Printer is not ready' } }
      if (!fake.behaviour.silentStart) fake.state.printing = file[1]!
      return { status: 204 }
    }
    return { status: 404 }
  }, authorize)
}
