import { afterEach, describe, expect, it } from 'vitest'
import { fakeBambu } from '../src/adapters/printers/bambu/bambu.fake.js'
import { bambu } from '../src/adapters/printers/bambu/bambu-kind.js'
import { createBambuPrinters } from '../src/adapters/printers/bambu/bambu-provider.js'
import { fakeDuet } from '../src/adapters/printers/duet/duet.fake.js'
import { duet } from '../src/adapters/printers/duet/duet-kind.js'
import type { FakePrinter } from '../src/adapters/printers/fake-server.fake.js'
import { fakeMoonraker } from '../src/adapters/printers/moonraker/moonraker.fake.js'
import { moonraker } from '../src/adapters/printers/moonraker/moonraker-kind.js'
import { fakeOctoPrint } from '../src/adapters/printers/octoprint/octoprint.fake.js'
import { octoprint } from '../src/adapters/printers/octoprint/octoprint-kind.js'
import { fakePrusaLink } from '../src/adapters/printers/prusalink/prusalink.fake.js'
import { prusalink } from '../src/adapters/printers/prusalink/prusalink-kind.js'
import { virtual } from '../src/adapters/printers/virtual/virtual-kind.js'
import { controlsOf, PrinterError, type PrinterProvider, type PrinterStatus } from '../src/core/printers/provider.js'
import type { PrinterProviderKind } from '../src/core/printers/provider-kind.js'
import { until } from './support/until.js'

/**
 * Each provider's pause, resume and cancel against its host's fake on a real socket (the virtual
 * printer in memory): the states each leads to through the host's transitional ones, the host's own
 * refusal when nothing prints, and a host that is gone.
 */
interface Rig {
  kind: PrinterProviderKind
  provider: PrinterProvider
  /** Puts a job on the printer, printing. */
  print(): Promise<void>
  /** The host's refusal of a pause with nothing printing; null where the host takes it without a word (Klipper). */
  refusal: RegExp | null
  /** Makes the host unreachable; absent where that is not a socket (the virtual printer). */
  disconnect?: () => Promise<void>
}

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()))
})
const connection = (address: string, credentials: Record<string, string> = {}) => ({
  id: crypto.randomUUID(),
  address,
  credentials,
  timeoutMs: 1000,
})
const onHttp = async (
  kind: PrinterProviderKind,
  fake: FakePrinter,
  refusal: RegExp | null,
  credentials?: Record<string, string>,
): Promise<Rig> => {
  closers.push(() => fake.close())
  fake.files.set('box.gcode', 2048)
  return {
    kind,
    provider: kind.connect(connection(fake.url, credentials)),
    refusal,
    async print() {
      fake.state.printing = 'box.gcode'
    },
    disconnect: () => fake.close(),
  }
}

const rigs: Record<string, () => Promise<Rig>> = {
  moonraker: async () => onHttp(moonraker, await fakeMoonraker(), null),
  octoprint: async () =>
    onHttp(octoprint, await fakeOctoPrint(), /HTTP 409 \(Printer is neither printing nor paused, 'pause' command/),
  prusalink: async () => onHttp(prusalink, await fakePrusaLink(), /HTTP 409 \(Printer is not in state to pause/),
  duet: async () => {
    const fake = await fakeDuet('board-password')
    return onHttp(duet(), fake, /Cannot pause print, because no file is being printed/, {
      password: 'board-password',
    })
  },
  bambu: async () => {
    const fake = await fakeBambu()
    const printers = createBambuPrinters()
    closers.push(async () => {
      await printers.close()
      await fake.close()
    })
    const kind = bambu(printers)
    return {
      kind,
      provider: kind.connect(connection(fake.address, { serial: fake.serial, access_code: fake.accessCode })),
      refusal: /refused the pause: the printer is FAILED/,
      async print() {
        fake.report({
          gcode_state: 'RUNNING',
          gcode_file: 'box.gcode.3mf',
          subtask_name: 'box.gcode.3mf',
          mc_percent: 10,
        })
      },
    }
  },
  virtual: async () => {
    const kind = virtual({ now: () => new Date() })
    const provider = kind.connect(connection('virtual://bench?heat_seconds=0'))
    return {
      kind,
      provider,
      refusal: /the virtual printer is idle; it cannot pause/,
      async print() {
        const bytes = new TextEncoder().encode('G1 X1\n')
        await provider.upload({ name: 'box.gcode', size: bytes.length, stream: new Blob([bytes]).stream() })
        await provider.start('box.gcode')
      },
    }
  },
}

/** The run is over: the host shows how it ended, or shows no job and is not busy with one. */
const over = (status: PrinterStatus) =>
  status.job ? status.job.ended !== null : !['printing', 'paused', 'busy'].includes(status.state)

const reaches = async (provider: PrinterProvider, what: string, done: (status: PrinterStatus) => boolean) => {
  let last: PrinterStatus | null = null
  await until(
    async () => {
      last = await provider.status()
      return done(last)
    },
    `the printer is ${what} (last ${JSON.stringify(last)})`,
    { timeoutMs: 5000, everyMs: 20 },
  )
}

describe.each(Object.keys(rigs))('the %s provider', (name) => {
  it('offers the controls its kind lists, and pauses, resumes and cancels a running print', async () => {
    const rig = await rigs[name]!()
    const { provider } = rig
    expect(controlsOf(provider)).toEqual([...rig.kind.controls])
    await rig.print()
    await reaches(provider, 'printing', (status) => status.state === 'printing')

    await provider.pause?.()
    await reaches(provider, 'paused', (status) => status.state === 'paused')
    await provider.resume?.()
    await reaches(provider, 'printing again', (status) => status.state === 'printing')
    await provider.cancel?.()
    await reaches(provider, 'over', over)
    const ended = await provider.status()
    expect(['idle', 'busy']).toContain(ended.state)

    // Nothing prints now: the host's own refusal, or (Klipper) a console line and no error.
    const refused = await provider.pause?.().then(
      () => null,
      (error: unknown) => error,
    )
    if (rig.refusal === null) expect(refused).toBeNull()
    else {
      expect(refused).toBeInstanceOf(PrinterError)
      expect(refused).toMatchObject({ kind: 'refused' })
      expect((refused as Error).message).toMatch(rig.refusal)
    }

    if (rig.disconnect) {
      await rig.disconnect()
      const gone = await provider.cancel?.().catch((error: unknown) => error)
      expect(gone).toBeInstanceOf(PrinterError)
      expect(['unreachable', 'timeout']).toContain((gone as PrinterError).kind)
    }
  })
})
