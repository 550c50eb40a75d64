import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { putContentAddressed, streamOf } from '../src/core/blobs/put-content-addressed.js'
import { registerUpload } from '../src/core/ingest/ingest.js'
import { admin, adminEnv, signIn } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

let first: TestVault
let second: TestVault
let token: string
beforeAll(async () => {
  first = await startTestVault(adminEnv)
  // A second instance on the same database and data directory: another process of one install.
  second = await startTestVault(adminEnv, { shareWith: first })
  token = (await signIn(first.baseUrl, admin)).access_token
})
afterAll(async () => {
  await second.close()
  await first.close()
})

async function stored(sha256: string) {
  const files = await first.deps.database.db
    .selectFrom('files')
    .select(['id', 'model_id'])
    .where('sha256', '=', sha256)
    .execute()
  const blobs: string[] = []
  for await (const blob of first.deps.blobs.list()) if (blob.key === sha256) blobs.push(blob.key)
  return { files, blobs }
}

describe('concurrent uploads of the same bytes store exactly one blob and one file', () => {
  it.each([
    ['on one instance', () => [first.baseUrl]],
    ['across two instances sharing the database', () => [first.baseUrl, second.baseUrl]],
  ])('%s', async (_where, baseUrls) => {
    const bytes = binaryCube(40 + Math.random())
    const urls = baseUrls()
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => upload(urls[i % urls.length]!, token, `hook-${i}.stl`, bytes)),
    )
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
    const fileIds = new Set(answers.map((a) => a.body.file.id))
    const modelIds = new Set(answers.map((a) => a.body.model.id))
    expect(fileIds.size).toBe(1)
    expect(modelIds.size).toBe(1)
    const { files, blobs } = await stored(answers[0]!.body.file.sha256)
    expect(files).toEqual([{ id: [...fileIds][0], model_id: [...modelIds][0] }])
    expect(blobs).toHaveLength(1)
    const orphanModels = await first.deps.database.db
      .selectFrom('models')
      .leftJoin('files', 'files.model_id', 'models.id')
      .select('models.id')
      .where('files.id', 'is', null)
      .execute()
    expect(orphanModels).toEqual([])
  })
})

describe('bytes that go while an upload is read', () => {
  it('answer 409 content_deleted, not a 500, and leave no file behind', async () => {
    const bytes = binaryCube(33.5)
    const staged = await putContentAddressed(first.deps.blobs, first.deps.createSha256, streamOf(bytes))
    // Between storing and reading: the orphan sweep (or a model deletion holding the same bytes) took them.
    await first.deps.blobs.delete(staged.sha256)
    const me = (await first.deps.database.db.selectFrom('users').select('id').executeTakeFirstOrThrow()).id
    const registering = registerUpload(first.deps, staged, { filename: 'gone.stl', uploadedBy: me })
    await expect(registering).rejects.toMatchObject({ status: 409, code: 'content_deleted' })
    expect((await stored(staged.sha256)).files).toEqual([])
  })
})
