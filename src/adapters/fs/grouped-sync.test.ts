import { describe, expect, it } from 'vitest'
import { groupedSync } from './grouped-sync.js'

/** A sync whose runs the test ends by hand. */
function heldSync() {
  const runs: { end: (error?: Error) => void }[] = []
  const sync = () =>
    new Promise<void>((resolve, reject) => {
      runs.push({ end: (error) => (error ? reject(error) : resolve()) })
    })
  return { sync, runs }
}

describe('groupedSync', () => {
  it('shares one run among callers who ask before it starts, and one more among those who ask during it', async () => {
    const { sync, runs } = heldSync()
    const grouped = groupedSync(sync)
    const first = grouped()
    expect(runs).toHaveLength(1)
    // Asked while the first run is under way: their writes may postdate its start, so they wait for a second run.
    const during = [grouped(), grouped(), grouped()]
    expect(runs).toHaveLength(1)
    let duringSettled = false
    void Promise.all(during).then(() => (duringSettled = true))
    runs[0]?.end()
    await first
    await Promise.resolve()
    expect(runs).toHaveLength(2)
    expect(duringSettled).toBe(false)
    runs[1]?.end()
    await Promise.all(during)
    expect(runs).toHaveLength(2)
    // Idle again: the next caller starts a run of its own at once.
    const later = grouped()
    expect(runs).toHaveLength(3)
    runs[2]?.end()
    await later
  })

  it('rejects the callers of a failed run, and the next callers still get a run of their own', async () => {
    const { sync, runs } = heldSync()
    const grouped = groupedSync(sync)
    const failed = grouped()
    const during = grouped()
    runs[0]?.end(new Error('EIO'))
    await expect(failed).rejects.toThrow('EIO')
    await Promise.resolve()
    expect(runs).toHaveLength(2)
    runs[1]?.end()
    await expect(during).resolves.toBeUndefined()
  })
})
