import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, signIn } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { asciiCube, binaryCube, upload } from './support/uploads.js'

/** Two vaults: models are made in the first, packaged, and uploaded into the second. */
let source: TestVault
let target: TestVault
let sourceToken: string
let targetToken: string

beforeAll(async () => {
  ;[source, target] = await Promise.all([startTestVault(adminEnv), startTestVault(adminEnv)])
  sourceToken = (await signIn(source.baseUrl, admin)).access_token
  targetToken = (await signIn(target.baseUrl, admin)).access_token
})
afterAll(async () => Promise.all([source?.close(), target?.close()]))

/** What must survive the trip: the model's fields, and each file by name, role and content hash. */
async function portrait(vault: TestVault, token: string, id: string) {
  const { body } = await call(vault.baseUrl, 'GET', `/api/v1/models/${id}`, { token })
  const cover = body.files.find((file: { id: string }) => file.id === body.cover_file_id)
  return {
    name: body.name,
    description: body.description,
    tags: body.tags,
    collections: body.collections.map((collection: { name: string }) => collection.name).sort(),
    cover: cover?.sha256 ?? null,
    files: body.files
      .map((file: { name: string; role: string; sha256: string }) => `${file.role} ${file.name} ${file.sha256}`)
      .sort(),
  }
}

async function makeModel(first: { name: string; bytes: Uint8Array | string }, extras: Record<string, string>) {
  const made = await upload(source.baseUrl, sourceToken, first.name, first.bytes)
  expect(made.status, JSON.stringify(made.body)).toBe(201)
  const id = made.body.model.id as string
  for (const [name, content] of Object.entries(extras)) {
    const added = await upload(source.baseUrl, sourceToken, name, content, { model_id: id })
    expect(added.status, JSON.stringify(added.body)).toBe(201)
  }
  return id
}

async function download(path: string, init: { method?: string; json?: unknown } = {}) {
  const res = await fetch(`${source.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${sourceToken}`, 'Content-Type': 'application/json' },
    ...(init.json ? { body: JSON.stringify(init.json) } : {}),
  })
  expect(res.status).toBe(200)
  return new Uint8Array(await res.arrayBuffer())
}

describe('a model package, exported from one vault and uploaded to a fresh one', () => {
  let boat: string
  let vase: string

  beforeAll(async () => {
    boat = await makeModel(
      { name: 'Benchy.stl', bytes: binaryCube(31) },
      {
        'Benchy tall.stl': asciiCube(9, 2),
        'front.png': `front picture ${crypto.randomUUID()}`,
        'side.jpg': `side picture ${crypto.randomUUID()}`,
        'README.md': '# Benchy\nPrint at 0.2 mm.',
        LICENSE: 'CC BY 4.0',
      },
    )
    const { body } = await call(source.baseUrl, 'GET', `/api/v1/models/${boat}`, { token: sourceToken })
    const side = body.files.find((file: { name: string }) => file.name === 'side.jpg')
    await call(source.baseUrl, 'PUT', `/api/v1/models/${boat}/cover`, {
      token: sourceToken,
      json: { file_id: side.id },
    })
    await call(source.baseUrl, 'PATCH', `/api/v1/models/${boat}`, {
      token: sourceToken,
      json: { name: '3D Benchy', description: 'The calibration boat, in two sizes.', tags: ['boat', 'calibration'] },
    })
    for (const name of ['Calibration', 'Favourites']) {
      const collection = await call(source.baseUrl, 'POST', '/api/v1/collections', {
        token: sourceToken,
        json: { name },
      })
      await call(source.baseUrl, 'PUT', `/api/v1/collections/${collection.body.id}/models/${boat}`, {
        token: sourceToken,
      })
    }
    // The same licence text on a second model: one stored blob in the source, a document of each model.
    vase = await makeModel({ name: 'Vase.stl', bytes: binaryCube(33) }, { LICENSE: 'CC BY 4.0' })
    await call(source.baseUrl, 'PATCH', `/api/v1/models/${vase}`, {
      token: sourceToken,
      json: { name: 'Spiral vase', tags: ['vase'] },
    })
  })

  it('comes back with the same name, description, tags, collections, cover and files by hash', async () => {
    const zip = await download(`/api/v1/models/${boat}/package`)
    const res = await upload(target.baseUrl, targetToken, '3d-benchy.zip', zip)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body).toMatchObject({ kind: 'archive', stored: 6, duplicates: 0, skipped: 1 })
    const [{ model, model_created }] = res.body.models
    expect(model_created).toBe(true)
    const expected = await portrait(source, sourceToken, boat)
    expect(expected.files).toHaveLength(6)
    expect(await portrait(target, targetToken, model.id)).toEqual(expected)

    // Uploading the same package again stores nothing and makes no second model.
    const again = await upload(target.baseUrl, targetToken, '3d-benchy.zip', zip)
    expect(again.status).toBe(200)
    expect(again.body.models).toEqual([{ model: expect.objectContaining({ id: model.id }), model_created: false }])
  })

  it('of several models comes back as those models, a document they share on each', async () => {
    const zip = await download('/api/v1/models/package', { method: 'POST', json: { ids: [vase, boat] } })
    const fresh = await startTestVault(adminEnv)
    try {
      const token = (await signIn(fresh.baseUrl, admin)).access_token as string
      const res = await upload(fresh.baseUrl, token, 'packages.zip', zip)
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      expect(res.body.models.map((entry: { model_created: boolean }) => entry.model_created)).toEqual([true, true])
      const [vaseCopy, boatCopy] = res.body.models.map((entry: { model: { id: string } }) => entry.model.id)
      expect(await portrait(fresh, token, vaseCopy)).toEqual(await portrait(source, sourceToken, vase))
      expect(await portrait(fresh, token, boatCopy)).toEqual(await portrait(source, sourceToken, boat))
    } finally {
      await fresh.close()
    }
  })
})
