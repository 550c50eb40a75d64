import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { claimJobs } from '../src/core/analysis/analysis-queue.js'
import { startAnalysisRunner } from '../src/core/ingest/background-analysis.js'
import { adminEnv, inProcessAuthorization } from './support/accounts.js'
import { callApi, postUpload } from './support/in-process-api.js'
import { type ShiftedClock, shiftedClock } from './support/shifted-clock.js'
import { createTestVault, type InProcessVault } from './support/test-vault.js'
import { binaryCube } from './support/uploads.js'

interface Uploaded {
  file: { id: string; sha256: string; has_thumbnail: boolean }
  model: { id: string; has_thumbnail: boolean; analysing_files: number }
}
interface Status {
  queued: number
  running: number
  failed: number
  rate_per_second: number
  seconds_left: number | null
  failures: { sha256: string; reason: string; attempts: number; files: { id: string }[] }[]
}

/**
 * Two processes of one install, as replicas on one database run: the front one serves requests and
 * renders nothing (`VAULT_ANALYSIS_WORKERS=0`), so what uploads queue waits there for the test to look
 * at; the back one renders, on a clock the test moves to make leases lapse.
 */
let front: InProcessVault
let back: InProcessVault
let clock: ShiftedClock
const suite = { vault: undefined as unknown as InProcessVault, authorization: '' }
beforeAll(async () => {
  front = await createTestVault({ ...adminEnv, VAULT_ANALYSIS_WORKERS: '0' })
  clock = shiftedClock()
  back = await createTestVault(adminEnv, { shareWith: front, clock })
  suite.vault = front
  suite.authorization = await inProcessAuthorization(front)
})
afterAll(async () => {
  await back?.close()
  await front?.close()
})

let cubes = 0
const uploadCube = async () => {
  const answer = await postUpload<Uploaded>(suite, `cube-${++cubes}.stl`, binaryCube(10 + cubes * 0.61))
  expect(answer.status).toBe(201)
  return answer.body
}
const status = async () => (await callApi<Status>(suite, 'GET', '/api/v1/analysis')).body
const model = async (id: string) => (await callApi<Uploaded['model']>(suite, 'GET', `/api/v1/models/${id}`)).body
const jobRow = (sha256: string) =>
  front.deps.database.db.selectFrom('analysis_jobs').selectAll().where('sha256', '=', sha256).executeTakeFirst()
/** Claims the queued jobs as a process that then stops without a word, its lease lapsing after `leaseMs`. */
const claimAsStoppedProcess = (leaseMs: number) => {
  const now = clock.now()
  return claimJobs(front.deps.database.db, {
    owner: 'a-process-that-stopped',
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + leaseMs).toISOString(),
    limit: 10,
  })
}

describe('the analysis queue', () => {
  it('keeps what uploads queue until a process renders it, and says how much waits', async () => {
    const uploads = [await uploadCube(), await uploadCube(), await uploadCube()]
    for (const { file, model } of uploads) {
      expect(file.has_thumbnail).toBe(false)
      expect(model).toMatchObject({ has_thumbnail: false, analysing_files: 1 })
    }
    await front.deps.analysis.idle()
    expect(await status()).toMatchObject({ queued: 3, running: 0, failed: 0, seconds_left: null })

    await back.deps.analysis.idle()
    const after = await status()
    expect(after).toMatchObject({ queued: 0, running: 0, failed: 0, seconds_left: null, failures: [] })
    expect(after.rate_per_second).toBeGreaterThan(0)
    for (const { model: uploaded } of uploads)
      expect(await model(uploaded.id)).toMatchObject({ has_thumbnail: true, analysing_files: 0 })
  })

  it('takes up the job of a process that stopped once its lease lapses', async () => {
    const { file, model: uploaded } = await uploadCube()
    expect(await claimAsStoppedProcess(60_000)).toMatchObject([{ sha256: file.sha256, attempts: 1 }])
    // Its lease holds: the job is running, elsewhere.
    await back.deps.analysis.idle()
    expect(await status()).toMatchObject({ queued: 0, running: 1 })
    expect(await model(uploaded.id)).toMatchObject({ has_thumbnail: false, analysing_files: 1 })

    clock.advance(61_000)
    await back.deps.analysis.idle()
    expect(await model(uploaded.id)).toMatchObject({ has_thumbnail: true, analysing_files: 0 })
    expect(await jobRow(file.sha256)).toMatchObject({ state: 'done', attempts: 2, lease_owner: null })
  })

  it('fails a job whose process stopped three times, with the reason, and queues it again on retry', async () => {
    const { file, model: uploaded } = await uploadCube()
    for (let stop = 1; stop <= 3; stop++) {
      expect(await claimAsStoppedProcess(-1)).toMatchObject([{ sha256: file.sha256, attempts: stop }])
    }
    await back.deps.analysis.idle()
    const failed = await status()
    expect(failed).toMatchObject({ queued: 0, running: 0, failed: 1 })
    expect(failed.failures[0]).toMatchObject({ sha256: file.sha256, attempts: 4, files: [{ id: file.id }] })
    expect(failed.failures[0]?.reason).toMatch(/stopped 3 times/)
    // Failed is not analysing: the model stops saying so.
    expect(await model(uploaded.id)).toMatchObject({ has_thumbnail: false, analysing_files: 0 })

    const retried = await callApi<{ retried: number }>(suite, 'POST', '/api/v1/analysis/retry', {
      sha256: file.sha256,
    })
    expect(retried).toEqual({ status: 200, body: { retried: 1 } })
    expect(await model(uploaded.id)).toMatchObject({ analysing_files: 1 })
    await back.deps.analysis.idle()
    expect(await status()).toMatchObject({ queued: 0, failed: 0, failures: [] })
    expect(await model(uploaded.id)).toMatchObject({ has_thumbnail: true, analysing_files: 0 })
    expect(await callApi(suite, 'POST', '/api/v1/analysis/retry', {})).toEqual({ status: 200, body: { retried: 0 } })
  })

  it('drops the job of content deleted before it was rendered', async () => {
    const { file } = await uploadCube()
    expect((await callApi(suite, 'DELETE', `/api/v1/files/${file.id}`)).status).toBe(204)
    await back.deps.analysis.idle()
    expect(await status()).toMatchObject({ queued: 0, running: 0, failed: 0 })
    expect(await jobRow(file.sha256)).toBeUndefined()
  })

  it('forgets a failure once every file of its content is deleted', async () => {
    const { file } = await uploadCube()
    for (let stop = 1; stop <= 3; stop++) await claimAsStoppedProcess(-1)
    await back.deps.analysis.idle()
    expect(await status()).toMatchObject({ failed: 1, failures: [{ sha256: file.sha256 }] })
    expect((await callApi(suite, 'DELETE', `/api/v1/files/${file.id}`)).status).toBe(204)
    expect(await status()).toMatchObject({ queued: 0, running: 0, failed: 0, failures: [] })
    expect(await jobRow(file.sha256)).toBeUndefined()
  })

  it('answers 422 problem+json for a retry naming no SHA-256, and changes nothing', async () => {
    for (const body of [{ sha256: 'not-a-hash' }, { sha256: 'A'.repeat(64) }, { sha256: 42 }]) {
      const answer = await front.app.request('/api/v1/analysis/retry', {
        method: 'POST',
        headers: { Authorization: suite.authorization, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(answer.status).toBe(422)
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    }
    expect(await status()).toMatchObject({ queued: 0, running: 0, failed: 0 })
  })

  it('renders a burst of uploads in two processes at once, each content once', async () => {
    const third = await createTestVault(adminEnv, { shareWith: front })
    try {
      const uploads = await Promise.all(Array.from({ length: 12 }, () => uploadCube()))
      await Promise.all([back.deps.analysis.idle(), third.deps.analysis.idle()])
      for (const { file, model: uploaded } of uploads) {
        expect(await jobRow(file.sha256)).toMatchObject({ state: 'done', attempts: 1 })
        expect(await model(uploaded.id)).toMatchObject({ has_thumbnail: true, analysing_files: 0 })
      }
    } finally {
      await third.close()
    }
  })
})

describe('rendering beside uploads', () => {
  it('renders nothing while uploads arrive, and what they queued once they have gone quiet', async () => {
    // This vault's own runner renders none; the test's runner renders as a 2-core machine does: none while uploading.
    const vault = await createTestVault({ ...adminEnv, VAULT_ANALYSIS_WORKERS: '0' })
    const uploadQuietMs = 400
    const runner = startAnalysisRunner(vault.deps, {
      concurrency: 1,
      concurrencyWhileUploading: 0,
      uploadQuietMs,
      leaseMs: 60_000,
      pollMs: 60_000,
    })
    try {
      const own = { vault, authorization: await inProcessAuthorization(vault) }
      const answer = await postUpload<Uploaded>(own, 'quiet.stl', binaryCube(7.3))
      expect(answer.status).toBe(201)
      runner.uploadArrived()
      const lastUpload = performance.now()
      runner.wake()
      expect((await callApi<Status>(own, 'GET', '/api/v1/analysis')).body).toMatchObject({ queued: 1, running: 0 })
      await runner.idle()
      expect(performance.now() - lastUpload).toBeGreaterThanOrEqual(uploadQuietMs - 1)
      const rendered = await callApi<Uploaded['model']>(own, 'GET', `/api/v1/models/${answer.body.model.id}`)
      expect(rendered.body).toMatchObject({ has_thumbnail: true, analysing_files: 0 })
    } finally {
      await runner.stop()
      await vault.close()
    }
  })
})
