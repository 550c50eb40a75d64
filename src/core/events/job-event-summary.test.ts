import { describe, expect, it } from 'vitest'
import { eventTypes } from './event-types.js'
import { summarizeJobEvent } from './job-event-summary.js'

const data = {
  job_id: 'j',
  model_id: 'm',
  model_name: 'Gridfinity bin',
  state: 'printing',
  printer_id: 'p',
  printer_name: 'Voron',
  copies: 3,
  copies_done: 1,
  attempts: 1,
  last_error: 'Voron: the printer reports the job cancelled',
}

describe('job events in words', () => {
  it('names the model and the printer for every kind of job event, and asks for attention where a person must look', () => {
    const jobTypes = eventTypes.filter((type) => type.startsWith('job.'))
    const told = jobTypes.map((type) => [type, summarizeJobEvent({ type, data })] as const)
    for (const [type, summary] of told) {
      expect(summary, type).not.toBeNull()
      expect(summary?.title, type).toMatch(/^Gridfinity bin: /)
    }
    const urgent = told.filter(([, summary]) => summary?.urgent).map(([type]) => type)
    expect(urgent).toEqual(['job.retrying', 'job.failed', 'job.paused'])
    expect(summarizeJobEvent({ type: 'job.part_printed', data })).toMatchObject({
      title: 'Gridfinity bin: part printed on Voron',
      message: 'A part of Gridfinity bin printed on Voron; 1 of 3 copies done, the next waits in the queue.',
    })
    expect(summarizeJobEvent({ type: 'job.retrying', data })?.message).toContain(
      '(Voron: the printer reports the job cancelled)',
    )
  })

  it('says what it can of an event without names, and leaves other events to the caller', () => {
    expect(summarizeJobEvent({ type: 'job.queued', data: { copies: 1, copies_done: 0 } })).toMatchObject({
      title: 'A print job: queued',
      message: 'A print job is in the print queue: 1 copy.',
    })
    expect(summarizeJobEvent({ type: 'printer.error', data: {} })).toBeNull()
  })
})
