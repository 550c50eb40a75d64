import { afterEach, describe, expect, it, vi } from 'vitest'
import { createSemaphore } from './semaphore.js'

/** A task that runs until `finish` is called, recording when it started. */
function gate(started: string[], name: string) {
  let finish!: () => void
  const done = new Promise<void>((resolve) => (finish = resolve))
  const task = () => {
    started.push(name)
    return done
  }
  return { task, finish }
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('createSemaphore', () => {
  it('runs at most `slots` tasks at once, the others in arrival order as slots free', async () => {
    const semaphore = createSemaphore(2)
    const started: string[] = []
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => gate(started, name))
    const runs = [a, b, c, d].map((g) => semaphore.run(g!.task))
    await turn()
    expect(started).toEqual(['a', 'b'])
    expect(semaphore.load()).toEqual({ running: 2, waiting: 2 })
    b!.finish()
    await turn()
    expect(started).toEqual(['a', 'b', 'c'])
    expect(semaphore.load()).toEqual({ running: 2, waiting: 1 })
    a!.finish()
    c!.finish()
    d!.finish()
    await Promise.all(runs)
    expect(started).toEqual(['a', 'b', 'c', 'd'])
    expect(semaphore.load()).toEqual({ running: 0, waiting: 0 })
  })

  it('frees the slot of a task that fails', async () => {
    const semaphore = createSemaphore(1)
    await expect(semaphore.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    await expect(semaphore.run(async () => 'next')).resolves.toBe('next')
  })

  afterEach(() => {
    vi.useRealTimers()
  })

  it('gives a slot back after its lease, once, while the slow task runs on', async () => {
    // The lease is a timer: moved on by the test, not waited for.
    vi.useFakeTimers()
    const turn = () => vi.advanceTimersByTimeAsync(0)
    const semaphore = createSemaphore(1, { leaseMs: 20 })
    const started: string[] = []
    const slow = gate(started, 'slow')
    const quick = gate(started, 'quick')
    const third = gate(started, 'third')
    const runs = [semaphore.run(slow.task), semaphore.run(quick.task), semaphore.run(third.task)]
    await turn()
    expect(started).toEqual(['slow'])
    await vi.advanceTimersByTimeAsync(19)
    expect(started).toEqual(['slow'])
    await vi.advanceTimersByTimeAsync(1)
    // The slow task's lease ran out and handed its slot on to the quick task, whose own lease
    // has only begun.
    expect(started).toEqual(['slow', 'quick'])
    slow.finish()
    quick.finish()
    third.finish()
    await Promise.all(runs)
    expect(started).toEqual(['slow', 'quick', 'third'])
    // Slots given back by leases were not given back a second time when the tasks settled.
    const probe: string[] = []
    const [x, y] = [gate(probe, 'x'), gate(probe, 'y')]
    const more = [semaphore.run(x.task), semaphore.run(y.task)]
    await turn()
    expect(probe).toEqual(['x'])
    x.finish()
    y.finish()
    await Promise.all(more)
  })
})
