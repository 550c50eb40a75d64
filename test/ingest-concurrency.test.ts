import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
