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
 * refusal when nothing prints, and a host that is gone. Then the G-code scripts of bed clearing on
 * the hosts whose fakes keep the lines they ran (Moonraker's are tested with the whole clearing).
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

/** A Bambu Lab printer's provider over its fake (MQTT and FTPS on loopback). */
const onBambu = async () => {
  const fake = await fakeBambu()
  const printers = createBambuPrinters()
  closers.push(async () => {
    await printers.close()
    await fake.close()
  })
  const kind = bambu(printers)
  return {
    fake,
    kind,
    provider: kind.connect(connection(fake.address, { serial: fake.serial, access_code: fake.accessCode })),
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
    const { fake, kind, provider } = await onBambu()
    return {
      kind,
      provider,
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

describe.each([
  ['octoprint', async () => ({ fake: await fakeOctoPrint(), kind: octoprint, credentials: {} })],
  ['duet', async () => ({ fake: await fakeDuet('pw'), kind: duet(), credentials: { password: 'pw' } })],
] as const)('the %s provider runs a bed-clearing script', (_name, host) => {
  it('hands the host its lines in order, and fails when the host cannot take them', async () => {
    const { fake, kind, credentials } = await host()
    closers.push(() => fake.close())
    expect(kind.scripts.runs).toBe(true)
    const provider = kind.connect(connection(fake.url, credentials))
    await provider.runGcode?.('G28\nG1 X10 Y200 F3000\nM84', { timeoutMs: 1000 })
    await until(() => fake.commands.length === 3, 'the host ran the lines', { timeoutMs: 5000, everyMs: 20 })
    expect(fake.commands).toEqual(['G28', 'G1 X10 Y200 F3000', 'M84'])

    await fake.close()
    const gone = await provider.runGcode?.('G28', { timeoutMs: 1000 }).catch((error: unknown) => error)
    expect(gone).toBeInstanceOf(PrinterError)
    expect(['unreachable', 'timeout']).toContain((gone as PrinterError).kind)
  })
})

it('OctoPrint refuses a script while it is not connected to the printer, with its own reason', async () => {
  const fake = await fakeOctoPrint()
  closers.push(() => fake.close())
  fake.behaviour.link = 'Offline'
  const refused = await octoprint
    .connect(connection(fake.url))
    .runGcode?.('G28', { timeoutMs: 1000 })
    .catch((error: unknown) => error)
  expect(refused).toBeInstanceOf(PrinterError)
  expect((refused as Error).message).toMatch(/409.*Printer is not operational/)
  expect(fake.commands).toEqual([])
})

describe('the bambu provider runs a bed-clearing script', () => {
  it('sends the lines in one gcode_line command, each ended by a newline, and waits for its result', async () => {
    const { fake, kind, provider } = await onBambu()
    expect(kind.scripts.runs).toBe(true)
    await provider.runGcode?.('G28\nG1 X10 Y250 F6000\n\nM84', { timeoutMs: 2000 })
    expect(fake.commands).toEqual(['G28', 'G1 X10 Y250 F6000', 'M84'])
    const sent = fake.requests.map((request) => (request as { print?: { command?: string; param?: string } }).print)
    expect(sent.filter((print) => print?.command === 'gcode_line').map((print) => print?.param)).toEqual([
      'G28\nG1 X10 Y250 F6000\nM84\n',
    ])
  })

  it('says what to switch on when the printer drops it for want of Developer Mode', async () => {
    const { fake, provider } = await onBambu()
    fake.behaviour.developerModeOff = true
    const refused = await provider.runGcode?.('G28', { timeoutMs: 2000 }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(PrinterError)
    expect((refused as Error).message).toMatch(/could not verify the G-code command .*Developer Mode/)
    expect(fake.commands).toEqual([])
  })
})
