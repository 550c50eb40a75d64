import { describe, expect, it } from 'vitest'
import { eachAtOnce } from './each-at-once.js'

/** Tasks that each wait until the test ends them, recording which are running. */
function gates() {
  const running = new Set<number>()
  const ends = new Map<number, { finish: () => void; fail: (error: Error) => void }>()
  let most = 0
  const task = (item: number) =>
    new Promise<void>((resolve, reject) => {
      running.add(item)
      most = Math.max(most, running.size)
      const settle = () => running.delete(item)
      ends.set(item, {
        finish: () => {
          settle()
          resolve()
        },
        fail: (error) => {
          settle()
          reject(error)
        },
      })
    })
  return { running, ends, task, most: () => most }
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0))

describe('eachAtOnce', () => {
  it('runs every item, at most `atOnce` at a time, starting them in order', async () => {
    const { running, ends, task, most } = gates()
    const done = eachAtOnce([1, 2, 3, 4, 5], 2, task)
    await turn()
    expect([...running]).toEqual([1, 2])
    ends.get(2)!.finish()
    await turn()
    expect([...running]).toEqual([1, 3])
    for (const item of [1, 3, 4, 5]) {
      ends.get(item)!.finish()
      await turn()
    }
    await done
    expect(most()).toBe(2)
    expect([...ends.keys()]).toEqual([1, 2, 3, 4, 5])
  })

  it('starts nothing more after a failure, and rejects with it once the running tasks have settled', async () => {
    const { running, ends, task } = gates()
    let settled = false
    const done = eachAtOnce([1, 2, 3, 4], 2, task).finally(() => (settled = true))
    done.catch(() => {})
    await turn()
    ends.get(1)!.fail(new Error('disk full'))
    await turn()
    expect([...running]).toEqual([2])
    expect(settled).toBe(false)
    ends.get(2)!.finish()
    await expect(done).rejects.toThrow('disk full')
    expect([...ends.keys()]).toEqual([1, 2])
  })

  it('does nothing for no items', async () => {
    await expect(eachAtOnce([], 4, () => Promise.reject(new Error('called')))).resolves.toBeUndefined()
  })
})
