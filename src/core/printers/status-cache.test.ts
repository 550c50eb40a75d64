import { describe, expect, it } from 'vitest'
import type { PrinterStatus } from './provider.js'
import { createPrinterStatusCache } from './status-cache.js'

const idle: PrinterStatus = {
  state: 'idle',
  reason: null,
  temperatures: { nozzle: null, bed: null },
  job: null,
  raw: {},
}
const printing: PrinterStatus = {
  ...idle,
  state: 'printing',
  job: { file_name: 'box.gcode', progress: 0, time_left_s: null, elapsed_s: 0, ended: null, run_id: null },
}

/** A poll the test answers when it chooses. */
function heldPoll() {
  let answer = (_status: PrinterStatus) => {}
  const poll = () =>
    new Promise<PrinterStatus>((resolve) => {
      answer = resolve
    })
  return { poll, answer: (status: PrinterStatus) => answer(status) }
}

describe('the printer status cache', () => {
  it('keeps the newer of two fresh polls, whichever answers last', async () => {
    let now = 1_000
    const cache = createPrinterStatusCache({ clock: { now: () => new Date(now) }, ttlMs: 5_000 })
    // A slow poll asked before a print started, then one asked after, which answers first.
    const before = heldPoll()
    const slow = cache.read('p', before.poll, { fresh: true })
    now += 10
    const after = heldPoll()
    const quick = cache.read('p', after.poll, { fresh: true })
    after.answer(printing)
    expect((await quick).state).toBe('printing')
    before.answer(idle)
    expect((await slow).state).toBe('idle')
    // The cache holds what the later-asked poll saw.
    expect((await cache.read('p', () => Promise.resolve(idle))).state).toBe('printing')
  })
})
