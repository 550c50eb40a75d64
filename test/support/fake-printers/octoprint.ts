import { apiKeyCheck, type CommonBehaviour, type FakePrinter, multipartFile, startFake } from './fake-server.js'

export interface OctoPrintBehaviour extends CommonBehaviour {
  /** The upload is stored but not selected. */
  noSelect?: boolean
}

/** OctoPrint: state flags, completion in percent, effectiveSelect/effectivePrint on upload. */
export function fakeOctoPrint(apiKey?: string): Promise<FakePrinter<OctoPrintBehaviour>> {
  let selected: string | null = null
  return startFake<OctoPrintBehaviour>(
    (req, url, body, fake) => {
      const path = url.pathname
      const printing = fake.state.printing
      if (path === '/api/version')
        return { status: 200, json: { api: '0.1', server: '1.10.2', text: 'OctoPrint 1.10.2' } }
      if (path === '/api/connection')
        return { status: 200, json: { current: { state: 'Operational', port: '/dev/ttyACM0' } } }
      if (path === '/api/printer') {
        return {
          status: 200,
          json: {
            temperature: { tool0: { actual: 214.8, target: 215 }, bed: { actual: 60.1, target: 60 } },
            state: {
              text: printing ? 'Printing' : 'Operational',
              flags: {
                operational: true,
                paused: false,
                printing: !!printing,
                pausing: false,
                cancelling: false,
                sdReady: true,
                error: false,
                ready: !printing,
                closedOrError: false,
              },
            },
          },
        }
      }
      if (path === '/api/job' && req.method === 'GET') {
        return {
          status: 200,
          json: {
            job: { file: { name: printing ?? selected, origin: 'local' }, estimatedPrintTime: 1200 },
            progress: {
              completion: printing ? 42.5 : null,
              printTime: printing ? 510 : null,
              printTimeLeft: printing ? 690 : null,
            },
            state: printing ? 'Printing' : 'Operational',
          },
        }
      }
      if (path === '/api/files/local' && req.method === 'POST') {
        const file = multipartFile(body, String(req.headers['content-type']))
        fake.files.set(file.name, file.size)
        const select = file.fields.select === 'true' && !fake.behaviour.noSelect
        if (select) selected = file.name
        return {
          status: 201,
          json: {
            files: { local: { name: file.name, path: file.name, origin: 'local' } },
            done: true,
            effectiveSelect: select,
            effectivePrint: false,
          },
        }
      }
      if (path === '/api/job' && req.method === 'POST') {
        if (fake.behaviour.refuseStart || printing)
          return { status: 409, json: { error: 'Printer is not operational or already printing' } }
        if (!fake.behaviour.silentStart) fake.state.printing = selected
        return { status: 204 }
      }
      return { status: 404, json: { error: 'Not found' } }
    },
    apiKeyCheck(apiKey, 403, { error: 'Forbidden' }),
  )
}
