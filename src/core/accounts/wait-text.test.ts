import { describe, expect, it } from 'vitest'
import { waitText } from './login-throttle.js'

describe('waitText', () => {
  it('says a wait in the unit a person reads at a glance, rounded up', () => {
    expect([1, 30, 89, 90, 120, 121, 5399, 5400, 86_400].map(waitText)).toEqual([
      '1 second',
      '30 seconds',
      '89 seconds',
      '2 minutes',
      '2 minutes',
      '3 minutes',
      '90 minutes',
      '2 hours',
      '24 hours',
    ])
  })
})
