import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, expectProblem, sha256Hex, signIn } from './support/accounts.js'
import { gcodeText, listModels } from './support/library.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault?.close())

async function add(name: string, bytes: Uint8Array | string, fields: Record<string, string> = {}) {
  const reply = await upload(vault.baseUrl, token, name, bytes, fields)
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  // Its thumbnail rendered: these tests follow thumbnails through deletions.
  await vault.deps.analysis.idle()
  return reply.body as { model: { id: string; name: string }; file: { sha256: string; size: number } }
}
const api = (method: string, path: string, json?: unknown) =>
  call(vault.baseUrl, method, `/api/v1${path}`, { token, ...(json !== undefined ? { json } : {}) })
const keys = async (store: 'blobs' | 'thumbnails') => {
  const found: string[] = []
  for await (const blob of vault.deps[store].list()) found.push(blob.key)
  return found
}
/** A binary STL tetrahedron with edges a, b, c along the axes: proportions make its thumbnail, scale does not. */
function tetrahedron(a: number, b: number, c: number): Uint8Array {
  const v = [
    [0, 0, 0],
    [a, 0, 0],
    [0, b, 0],
    [0, 0, c],
  ]
  const faces = [
    [0, 2, 1],
    [0, 1, 3],
    [0, 3, 2],
    [1, 2, 3],
  ]
  const bytes = new Uint8Array(84 + 50 * faces.length)
  const view = new DataView(bytes.buffer)
  view.setUint32(80, faces.length, true)
  for (const [i, face] of faces.entries()) {
    for (const [j, value] of face.flatMap((index) => v[index]!).entries())
      view.setFloat32(84 + i * 50 + 12 + j * 4, value, true)
  }
  return bytes
}
const thumbnailOf = async (modelId: string) =>
  (
    await vault.deps.database.db
      .selectFrom('models')
      .select('thumbnail_sha256')
      .where('id', '=', modelId)
      .executeTakeFirstOrThrow()
  ).thumbnail_sha256!
const tags = async () =>
  (await api('GET', '/tags')).body.items.map((t: { name: string; model_count: number }) => [t.name, t.model_count])

describe('editing a model', () => {
  it('changes name, description and tags, shows them on the detail and bumps updated_at', async () => {
    const { model } = await add('edit-me.stl', binaryCube(30))
    const before = (await api('GET', `/models/${model.id}`)).body
    const reply = await api('PATCH', `/models/${model.id}`, {
      name: '  Hex Key Holder ',
      description: 'M3, M4 and M5',
      tags: ['Tools', ' workshop ', 'tools'],
    })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      id: model.id,
      name: 'Hex Key Holder',
      description: 'M3, M4 and M5',
      tags: ['Tools', 'workshop'],
      collections: [],
    })
    expect(reply.body.updated_at > before.updated_at).toBe(true)
    expect(reply.body.files).toHaveLength(1)
    const detail = (await api('GET', `/models/${model.id}`)).body
    expect(detail).toEqual(reply.body)
    expect((await api('PATCH', `/models/${model.id}`, { tags: [] })).body.tags).toEqual([])
  })

  it('shares tags regardless of case, keeping the first spelling, and counts them', async () => {
    const a = (await add('tag-a.stl', binaryCube(31))).model.id
    const b = (await add('tag-b.stl', binaryCube(32))).model.id
    await api('PATCH', `/models/${a}`, { tags: ['PETG', 'Gift'] })
    await api('PATCH', `/models/${b}`, { tags: ['petg'] })
    expect((await api('GET', `/models/${b}`)).body.tags).toEqual(['PETG'])
    expect(await tags()).toEqual([
      ['Gift', 1],
      ['PETG', 2],
    ])
    await api('PATCH', `/models/${a}`, { tags: ['Gift'] })
    expect(await tags()).toEqual([
      ['Gift', 1],
      ['PETG', 1],
    ])
    await api('DELETE', `/models/${b}`)
    expect(await tags()).toEqual([['Gift', 1]])
    await api('DELETE', `/models/${a}`)
    expect(await tags()).toEqual([])
  })

  it('refuses empty, unknown or malformed changes with 422, and unknown models with 404', async () => {
    const { model } = await add('bad-edit.stl', binaryCube(33))
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { color: 'red' },
      { tags: ['a,b'] },
      { tags: [''] },
      { tags: ['x'.repeat(65)] },
      { tags: 'one' },
      { description: 5 },
    ]) {
      expectProblem(await api('PATCH', `/models/${model.id}`, body), 422, 'validation_failed')
    }
    expectProblem(
      await call(vault.baseUrl, 'PATCH', `/api/v1/models/${model.id}`, {
        token,
        body: '{nope',
        headers: { 'Content-Type': 'application/json' },
      }),
      400,
      'malformed_json',
    )
    expectProblem(await api('PATCH', '/models/no-such-model', { name: 'x' }), 404, 'not_found')
    expectProblem(await api('GET', '/models/no-such-model'), 404, 'not_found')
    expectProblem(await api('DELETE', '/models/no-such-model'), 404, 'not_found')
  })
})

describe('collections', () => {
  it('are created, listed with model counts, renamed and deleted; models stay', async () => {
    const m1 = (await add('col-1.stl', binaryCube(40))).model.id
    const m2 = (await add('col-2.stl', binaryCube(41))).model.id
    const created = await api('POST', '/collections', { name: 'Gifts', description: 'for friends' })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe(`/api/v1/collections/${created.body.id}`)
    expect(created.body).toMatchObject({
      name: 'Gifts',
      description: 'for friends',
      model_count: 0,
      models_url: `/api/v1/models?collection=${created.body.id}`,
    })
    const id = created.body.id as string

    expect((await api('PUT', `/collections/${id}/models/${m1}`)).status).toBe(204)
    expect((await api('PUT', `/collections/${id}/models/${m1}`)).status).toBe(204)
    expect((await api('PUT', `/collections/${id}/models/${m2}`)).status).toBe(204)
    expect((await api('GET', `/collections/${id}`)).body.model_count).toBe(2)
    expect((await api('GET', `/models/${m1}`)).body.collections).toEqual([
      { id, name: 'Gifts', url: `/api/v1/collections/${id}` },
    ])

    const renamed = await api('PATCH', `/collections/${id}`, { name: 'Presents' })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ name: 'Presents', description: 'for friends', model_count: 2 })
    expect((await api('GET', '/collections')).body.items).toEqual([
      expect.objectContaining({ id, name: 'Presents', model_count: 2 }),
    ])

    expect((await api('DELETE', `/collections/${id}/models/${m2}`)).status).toBe(204)
    expect((await api('DELETE', `/collections/${id}/models/${m2}`)).status).toBe(204)
    expect((await api('GET', `/collections/${id}`)).body.model_count).toBe(1)
    expect((await listModels(vault.baseUrl, token, `collection=${id}`)).items.map((m) => m.id)).toEqual([m1])

    expect((await api('DELETE', `/collections/${id}`)).status).toBe(204)
    expectProblem(await api('GET', `/collections/${id}`), 404, 'not_found')
    expect((await api('GET', `/models/${m1}`)).body.collections).toEqual([])
    await api('DELETE', `/models/${m1}`)
    await api('DELETE', `/models/${m2}`)
  })

  it('answer 409 for a name another collection has, regardless of case', async () => {
    const first = (await api('POST', '/collections', { name: 'Calibration' })).body.id
    const second = (await api('POST', '/collections', { name: 'Spare parts' })).body.id
    expectProblem(await api('POST', '/collections', { name: 'calibration' }), 409, 'collection_name_taken')
    expectProblem(await api('PATCH', `/collections/${second}`, { name: 'CALIBRATION ' }), 409, 'collection_name_taken')
    expect((await api('PATCH', `/collections/${first}`, { name: 'calibration' })).body.name).toBe('calibration')
    await api('DELETE', `/collections/${first}`)
    await api('DELETE', `/collections/${second}`)
  })

  it('answer 404 for unknown collections or models and 422 for bad input', async () => {
    const { model } = await add('col-3.stl', binaryCube(42))
    const id = (await api('POST', '/collections', { name: 'Misc' })).body.id
    expectProblem(await api('PUT', `/collections/no-such/models/${model.id}`), 404, 'not_found')
    expectProblem(await api('PUT', `/collections/${id}/models/no-such`), 404, 'not_found')
    expectProblem(await api('DELETE', `/collections/${id}/models/no-such`), 404, 'not_found')
    expectProblem(await api('PATCH', '/collections/no-such', { name: 'x' }), 404, 'not_found')
    expectProblem(await api('DELETE', '/collections/no-such'), 404, 'not_found')
    for (const body of [{}, { name: '' }, { name: 'a\nb' }, { name: 'x'.repeat(101) }, { name: 'ok', owner: 'me' }]) {
      expectProblem(await api('POST', '/collections', body), 422, 'validation_failed')
    }
    expectProblem(await api('PATCH', `/collections/${id}`, {}), 422, 'validation_failed')
    await api('DELETE', `/collections/${id}`)
    await api('DELETE', `/models/${model.id}`)
  })
})

describe('deleting a model', () => {
  it('removes its files, blobs and thumbnails, its memberships and its search entry', async () => {
    const { model, file } = await add('doomed.stl', tetrahedron(10, 27, 13))
    const extra = await add('doomed-notes.txt', 'doomed notes', { model_id: model.id })
    const collection = (await api('POST', '/collections', { name: 'Doomed' })).body.id
    await api('PUT', `/collections/${collection}/models/${model.id}`)
    await api('PATCH', `/models/${model.id}`, { tags: ['doomed-tag'] })
    const thumbnail = await thumbnailOf(model.id)
    expect(await keys('blobs')).toEqual(expect.arrayContaining([file.sha256, extra.file.sha256]))
    expect(await keys('thumbnails')).toContain(thumbnail)

    expect((await api('DELETE', `/models/${model.id}`)).status).toBe(204)
    expectProblem(await api('GET', `/models/${model.id}`), 404, 'not_found')
    expect(await keys('blobs')).not.toContain(file.sha256)
    expect(await keys('blobs')).not.toContain(extra.file.sha256)
    expect(await keys('thumbnails')).not.toContain(thumbnail)
    expect((await api('GET', `/collections/${collection}`)).body.model_count).toBe(0)
    expect(await tags()).toEqual([])
    expect((await listModels(vault.baseUrl, token, 'q=doomed')).items).toEqual([])
    await api('DELETE', `/collections/${collection}`)
  })

  it('keeps a thumbnail another model still uses, and removes it with the last one', async () => {
    // The same shape at two scales renders the same picture: one thumbnail blob, two models.
    const small = (await add('tetra-small.stl', tetrahedron(10, 31, 17))).model.id
    const large = (await add('tetra-large.stl', tetrahedron(20, 62, 34))).model.id
    const thumbnail = await thumbnailOf(small)
    expect(await thumbnailOf(large)).toBe(thumbnail)
    await api('DELETE', `/models/${small}`)
    expect(await keys('thumbnails')).toContain(thumbnail)
    expect(
      (
        await fetch(`${vault.baseUrl}/api/v1/models/${large}/thumbnail`, {
          headers: { Authorization: `Bearer ${token}` },
        })
      ).status,
    ).toBe(200)
    await api('DELETE', `/models/${large}`)
    expect(await keys('thumbnails')).not.toContain(thumbnail)
  })

  it('leaves other models’ blobs alone, and the same bytes can be uploaded again afterwards', async () => {
    const keep = await add('keeper.stl', binaryCube(70))
    const gone = await add('goner.stl', binaryCube(71))
    await api('DELETE', `/models/${gone.model.id}`)
    expect(await keys('blobs')).toContain(keep.file.sha256)
    const again = await upload(vault.baseUrl, token, 'goner.stl', binaryCube(71))
    expect(again.status).toBe(201)
    expect(await keys('blobs')).toContain(gone.file.sha256)
    await api('DELETE', `/models/${keep.model.id}`)
    await api('DELETE', `/models/${again.body.model.id}`)
  })

  it('racing an upload of the same bytes never leaves a file without its blob', async () => {
    const bytes = `race content ${crypto.randomUUID()}`.repeat(50)
    for (let round = 0; round < 12; round++) {
      const first = await upload(vault.baseUrl, token, 'race.txt', bytes)
      expect([200, 201]).toContain(first.status)
      const [deleted, again] = await Promise.all([
        api('DELETE', `/models/${first.body.model.id}`),
        upload(vault.baseUrl, token, 'race.txt', bytes),
      ])
      expect([204, 404]).toContain(deleted.status)
      expect([200, 201, 409], JSON.stringify(vault.logs.filter((line) => line.level === 'error'))).toContain(
        again.status,
      )
      if (again.status === 409) expect(again.body.code).toBe('content_deleted')
      const rows = await vault.deps.database.db
        .selectFrom('files')
        .select('sha256')
        .where('sha256', '=', sha256Hex(bytes))
        .execute()
      const stored = await vault.deps.blobs.stat(sha256Hex(bytes))
      if (rows.length > 0) expect(stored, `round ${round}: a file row without its blob`).not.toBeNull()
      for (const row of await api('GET', `/models?q=race&limit=200`).then((r) => r.body.items))
        await api('DELETE', `/models/${row.id}`)
    }
  })
})

describe('stats', () => {
  it('count models, files, bytes and dedup savings, with breakdowns, and follow edits and deletes', async () => {
    const fresh = await startTestVault(adminEnv)
    try {
      const t = (await signIn(fresh.baseUrl, admin)).access_token
      const put = async (name: string, bytes: Uint8Array | string, fields: Record<string, string> = {}) =>
        (await upload(fresh.baseUrl, t, name, bytes, fields)).body
      const stats = async () => (await call(fresh.baseUrl, 'GET', '/api/v1/models/stats', { token: t })).body
      expect(await stats()).toEqual({
        totals: { models: 0, files: 0, bytes_stored: 0, duplicate_uploads: 0, bytes_saved_by_dedup: 0 },
        by_format: [],
        by_tag: [],
        by_collection: [],
        by_slicer: [],
      })
      const cube = binaryCube(80)
      const a = await put('a.stl', cube)
      const gcode = gcodeText({ slicer: 'PrusaSlicer', printer: 'MK4', filamentType: 'PLA' })
      await put('a.gcode', gcode, { model_id: a.model.id })
      const b = await put('b.gcode', gcodeText({ slicer: 'OrcaSlicer', printer: 'X1C', filamentType: 'PETG' }))
      expect((await put('a-again.stl', cube)).duplicate).toBe(true)
      expect((await put('a-third.stl', cube)).duplicate).toBe(true)
      await call(fresh.baseUrl, 'PATCH', `/api/v1/models/${a.model.id}`, { token: t, json: { tags: ['Gift'] } })
      const collection = (await call(fresh.baseUrl, 'POST', '/api/v1/collections', { token: t, json: { name: 'Box' } }))
        .body
      await call(fresh.baseUrl, 'PUT', `/api/v1/collections/${collection.id}/models/${b.model.id}`, { token: t })

      const bSize = b.file.size
      expect(await stats()).toEqual({
        totals: {
          models: 2,
          files: 3,
          bytes_stored: cube.length + gcode.length + bSize,
          duplicate_uploads: 2,
          bytes_saved_by_dedup: 2 * cube.length,
        },
        by_format: [
          { format: 'gcode', files: 2, models: 2, bytes: gcode.length + bSize },
          { format: 'stl', files: 1, models: 1, bytes: cube.length },
        ],
        by_tag: [{ tag: 'Gift', models: 1 }],
        by_collection: [{ id: collection.id, name: 'Box', models: 1 }],
        by_slicer: [
          { slicer: 'OrcaSlicer', files: 1, models: 1 },
          { slicer: 'PrusaSlicer', files: 1, models: 1 },
        ],
      })

      await call(fresh.baseUrl, 'DELETE', `/api/v1/models/${b.model.id}`, { token: t })
      const after = await stats()
      expect(after.totals).toEqual({
        models: 1,
        files: 2,
        bytes_stored: cube.length + gcode.length,
        duplicate_uploads: 2,
        bytes_saved_by_dedup: 2 * cube.length,
      })
      expect(after.by_collection).toEqual([{ id: collection.id, name: 'Box', models: 0 }])
      expect(after.by_slicer).toEqual([{ slicer: 'PrusaSlicer', files: 1, models: 1 }])
      expect(after.by_format.map((f: { format: string }) => f.format)).toEqual(['gcode', 'stl'])
    } finally {
      await fresh.close()
    }
  })
})
