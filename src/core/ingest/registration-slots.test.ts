import { describe, expect, it } from 'vitest'
import { createRegistrationSlots } from './registration-slots.js'

const held = () => {
  let release = () => {}
  const done = new Promise<void>((resolve) => (release = resolve))
  return { task: () => done, release }
}

describe('registration slots', () => {
  it('run small files beside the large ones, each size bounded on its own', async () => {
    const slots = createRegistrationSlots({ large: 2, small: 3, smallBytes: 1024 })
    const large = [held(), held(), held()]
    const small = [held(), held(), held(), held()]
    const running = [
      ...large.map((one) => slots.run(5_000, one.task)),
      ...small.map((one) => slots.run(1024, one.task)),
    ]
    // Two large and three small run; the third large and the fourth small wait.
    expect(slots.load()).toEqual({ running: 5, waiting: 2 })
    large[0]?.release()
    small[0]?.release()
    await running[0]
    await running[3]
    expect(slots.load()).toEqual({ running: 5, waiting: 0 })
    for (const one of [...large, ...small]) one.release()
    await Promise.all(running)
    expect(slots.load()).toEqual({ running: 0, waiting: 0 })
  })
})
