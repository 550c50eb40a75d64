import { describe, expect, it } from 'vitest'
import { type ConfirmedCredential, createConfirmedCredentials } from './confirmed-credentials.js'

const principal = {
  userId: 'u1',
  username: 'maker',
  role: 'user' as const,
  sessionId: 's1',
  apiKeyId: null,
  scopes: ['full' as const],
  account: { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', passwordGenerated: false },
}

/** A clock the test moves, and a check that counts its database reads. */
function setUp(recheckMs: number, expiresAtMs: number | null = null) {
  let nowMs = 1_000_000
  const clock = { now: () => new Date(nowMs) }
  const checks = { count: 0 }
  const check = async (): Promise<ConfirmedCredential> => {
    checks.count += 1
    return { principal, expiresAtMs }
  }
  const confirmed = createConfirmedCredentials(clock, recheckMs)
  return { confirmed, check, checks, advance: (ms: number) => (nowMs += ms) }
}

describe('credentials confirmed live', () => {
  it('are answered without a database read within the window, and read again from its end', async () => {
    const { confirmed, check, checks, advance } = setUp(1000)
    expect(await confirmed.confirm('session s1', check)).toEqual(principal)
    advance(999)
    // At once, not a promise: a request with a confirmed credential waits on nothing.
    expect(confirmed.confirm('session s1', check)).toEqual(principal)
    expect(checks.count).toBe(1)
    advance(1)
    await confirmed.confirm('session s1', check)
    expect(checks.count).toBe(2)
  })

  it('are read on every request with a window of 0', async () => {
    const { confirmed, check, checks } = setUp(0)
    await confirmed.confirm('session s1', check)
    await confirmed.confirm('session s1', check)
    expect(checks.count).toBe(2)
  })

  it('are never answered past their own expiry, even within the window', async () => {
    const { confirmed, check, checks, advance } = setUp(1000, 1_000_500)
    await confirmed.confirm('session s1', check)
    advance(500)
    await confirmed.confirm('session s1', check)
    expect(checks.count).toBe(2)
  })

  it('a refusal is not remembered: the next request reads again', async () => {
    const { confirmed, checks } = setUp(1000)
    const refuse = async (): Promise<ConfirmedCredential> => {
      checks.count += 1
      throw new Error('session ended')
    }
    await expect(confirmed.confirm('session s1', refuse)).rejects.toThrow('session ended')
    await expect(confirmed.confirm('session s1', refuse)).rejects.toThrow('session ended')
    expect(checks.count).toBe(2)
  })

  it('forget() makes the next request read again, and a read that overlapped it is not remembered', async () => {
    const { confirmed, check, checks } = setUp(1000)
    await confirmed.confirm('session s1', check)
    confirmed.forget()
    await confirmed.confirm('session s1', check)
    expect(checks.count).toBe(2)

    // A check that read "live" before a revocation committed and forget() ran must not outlive it.
    let release!: () => void
    const slow = async (): Promise<ConfirmedCredential> => {
      await new Promise<void>((resolve) => (release = resolve))
      return check()
    }
    confirmed.forget()
    const overlapping = confirmed.confirm('session s1', slow)
    confirmed.forget()
    release()
    await overlapping
    await confirmed.confirm('session s1', check)
    expect(checks.count).toBe(4)
  })

  it('a clock that went back ends the window', async () => {
    const { confirmed, check, checks, advance } = setUp(1000)
    await confirmed.confirm('session s1', check)
    advance(-1)
    await confirmed.confirm('session s1', check)
    expect(checks.count).toBe(2)
  })
})
