import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, expectProblem, signIn } from './support/accounts.js'
import { gcodeText, listAllPages, listModels, namesFor } from './support/library.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

let vault: TestVault
let token: string
const ids: Record<string, string> = {}
const created: Record<string, string> = {}

async function add(name: string, bytes: Uint8Array | string, fields: Record<string, string> = {}) {
  const reply = await upload(vault.baseUrl, token, name, bytes, fields)
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.model as { id: string; name: string; created_at: string }
}

async function patch(id: string, json: unknown) {
  const reply = await call(vault.baseUrl, 'PATCH', `/api/v1/models/${id}`, { token, json })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body
}

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
  const models = [
    await add('Calibration Cube.stl', binaryCube(10)),
    await add('Benchy Hull.stl', binaryCube(11)),
    await add(
      'plate 7.gcode',
      gcodeText({ slicer: 'PrusaSlicer', printer: 'MK4S', filamentType: 'PETG', filamentName: 'Prusament PETG' }),
    ),
    await add(
      'orca-part.gcode',
      gcodeText({ slicer: 'OrcaSlicer', printer: 'Bambu Lab X1 Carbon', filamentType: 'PLA' }),
    ),
    await add('notes.txt', 'print slowly'),
    await add('Élan Bracket.stl', binaryCube(12)),
  ]
  for (const model of models) {
    ids[model.name] = model.id
    created[model.name] = model.created_at
  }
  // A second file on an existing model, and a G-code on a mesh model: its formats grow.
  await add('hull-spacer.txt', 'spacer notes', { model_id: ids['Benchy Hull']! })
  await add('cube-sliced.gcode', gcodeText({ slicer: 'PrusaSlicer', printer: 'MK3S', filamentType: 'PLA' }), {
    model_id: ids['Calibration Cube']!,
  })
  await patch(ids['Benchy Hull']!, { tags: ['Functional', 'boat'], description: 'The classic torture test' })
  await patch(ids['Calibration Cube']!, { tags: ['functional', 'Calibration'] })
  await patch(ids.notes!, { tags: ['boat'] })
  // The meshes' thumbnails are rendered after the uploads have answered.
  await vault.deps.analysis.idle()
})
afterAll(async () => vault?.close())

describe('full-text search', () => {
  it('finds models by the start of words in their names, ignoring case and accents', async () => {
    expect(await namesFor(vault.baseUrl, token, 'q=calib')).toEqual(['Calibration Cube'])
    expect(await namesFor(vault.baseUrl, token, 'q=CAL%20cub')).toEqual(['Calibration Cube'])
    expect(await namesFor(vault.baseUrl, token, 'q=elan')).toEqual(['Élan Bracket'])
    expect(await namesFor(vault.baseUrl, token, `q=${encodeURIComponent('ÉLAN brack')}`)).toEqual(['Élan Bracket'])
  })

  it('finds models by description, tag and the names of their files', async () => {
    expect(await namesFor(vault.baseUrl, token, 'q=torture')).toEqual(['Benchy Hull'])
    expect(await namesFor(vault.baseUrl, token, 'q=functional')).toEqual(['Benchy Hull', 'Calibration Cube'])
    expect(await namesFor(vault.baseUrl, token, 'q=spacer')).toEqual(['Benchy Hull'])
    expect(await namesFor(vault.baseUrl, token, 'q=sliced')).toEqual(['Calibration Cube'])
  })

  it('finds models by extracted metadata: slicer, printer model, filament type and name', async () => {
    expect(await namesFor(vault.baseUrl, token, 'q=orcaslicer')).toEqual(['orca-part'])
    expect(await namesFor(vault.baseUrl, token, 'q=prusaslicer')).toEqual(['Calibration Cube', 'plate 7'])
    expect(await namesFor(vault.baseUrl, token, 'q=mk4s')).toEqual(['plate 7'])
    expect(await namesFor(vault.baseUrl, token, 'q=bambu%20carbon')).toEqual(['orca-part'])
    expect(await namesFor(vault.baseUrl, token, 'q=prusament')).toEqual(['plate 7'])
    expect(await namesFor(vault.baseUrl, token, 'q=petg')).toEqual(['plate 7'])
  })

  it('needs every word to match, and answers an empty last page when nothing does', async () => {
    expect(await namesFor(vault.baseUrl, token, 'q=calibration%20benchy')).toEqual([])
    expect(await listModels(vault.baseUrl, token, 'q=zzzzz')).toEqual({ items: [], next_cursor: null })
  })

  it('treats a query of punctuation only as no query, and never as search syntax', async () => {
    expect((await listModels(vault.baseUrl, token, `q=${encodeURIComponent('"*:&!')}`)).items).toHaveLength(6)
    expect(await namesFor(vault.baseUrl, token, `q=${encodeURIComponent('cube" OR "x*')}`)).toEqual([])
    expect(await namesFor(vault.baseUrl, token, `q=${encodeURIComponent('calibration:*|')}`)).toEqual([
      'Calibration Cube',
    ])
  })

  it('follows edits at once: old words stop matching, new ones match', async () => {
    const id = ids['Élan Bracket']!
    await patch(id, { description: 'zebra stripes' })
    expect(await namesFor(vault.baseUrl, token, 'q=zebra')).toEqual(['Élan Bracket'])
    await patch(id, { name: 'Wall Bracket', description: 'giraffe' })
    expect(await namesFor(vault.baseUrl, token, 'q=zebra')).toEqual([])
    expect(await namesFor(vault.baseUrl, token, 'q=giraffe')).toEqual(['Wall Bracket'])
    expect(await namesFor(vault.baseUrl, token, 'q=wall')).toEqual(['Wall Bracket'])
    // Its file is still named "Élan Bracket.stl", and file names are searched too.
    expect(await namesFor(vault.baseUrl, token, 'q=elan')).toEqual(['Wall Bracket'])
    await patch(id, { name: 'Élan Bracket', description: '' })
  })
})

describe('filters', () => {
  it('by tag, regardless of case; repeated tags must all match', async () => {
    expect(await namesFor(vault.baseUrl, token, 'tag=FUNCTIONAL')).toEqual(['Benchy Hull', 'Calibration Cube'])
    expect(await namesFor(vault.baseUrl, token, 'tag=boat&tag=functional')).toEqual(['Benchy Hull'])
    expect(await namesFor(vault.baseUrl, token, 'tag=no-such-tag')).toEqual([])
  })

  it('by collection', async () => {
    const collection = await call(vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: 'Boats' } })
    expect(collection.status).toBe(201)
    for (const name of ['Benchy Hull', 'notes']) {
      expect(
        (await call(vault.baseUrl, 'PUT', `/api/v1/collections/${collection.body.id}/models/${ids[name]}`, { token }))
          .status,
      ).toBe(204)
    }
    expect(await namesFor(vault.baseUrl, token, `collection=${collection.body.id}`)).toEqual(['Benchy Hull', 'notes'])
    expect(await namesFor(vault.baseUrl, token, `collection=${collection.body.id}&q=hull`)).toEqual(['Benchy Hull'])
    expect(await namesFor(vault.baseUrl, token, 'collection=no-such-collection')).toEqual([])
  })

  it('by file format (any of several) and by having G-code', async () => {
    expect(await namesFor(vault.baseUrl, token, 'file_format=gcode')).toEqual([
      'Calibration Cube',
      'orca-part',
      'plate 7',
    ])
    expect(await namesFor(vault.baseUrl, token, 'file_format=document&file_format=step')).toEqual([
      'Benchy Hull',
      'notes',
    ])
    expect(await namesFor(vault.baseUrl, token, 'has_gcode=true')).toEqual(['Calibration Cube', 'orca-part', 'plate 7'])
    expect(await namesFor(vault.baseUrl, token, 'has_gcode=false')).toEqual(['Benchy Hull', 'notes', 'Élan Bracket'])
    expect(await namesFor(vault.baseUrl, token, 'has_gcode=false&file_format=stl')).toEqual([
      'Benchy Hull',
      'Élan Bracket',
    ])
  })

  it('by creation and update time: from is inclusive, to is exclusive', async () => {
    const boundary = created['orca-part']!
    const all = (await listModels(vault.baseUrl, token, 'limit=200')).items
    const expectFrom = all
      .filter((m) => m.created_at >= boundary)
      .map((m) => m.name)
      .sort()
    const expectTo = all
      .filter((m) => m.created_at < boundary)
      .map((m) => m.name)
      .sort()
    expect(expectFrom).toContain('orca-part')
    expect(await namesFor(vault.baseUrl, token, `created_from=${encodeURIComponent(boundary)}`)).toEqual(expectFrom)
    expect(await namesFor(vault.baseUrl, token, `created_to=${encodeURIComponent(boundary)}`)).toEqual(expectTo)

    const touched = await patch(ids.notes!, { description: 'touched now' })
    expect(await namesFor(vault.baseUrl, token, `updated_from=${encodeURIComponent(touched.updated_at)}`)).toContain(
      'notes',
    )
    const before = await namesFor(vault.baseUrl, token, `updated_to=${encodeURIComponent(touched.updated_at)}`)
    expect(before).not.toContain('notes')
    expect(before.length).toBe(
      all.length -
        (await namesFor(vault.baseUrl, token, `updated_from=${encodeURIComponent(touched.updated_at)}`)).length,
    )
    // An offset is honoured: the same instant written in another zone.
    const shifted = new Date(Date.parse(touched.updated_at)).toISOString().replace('Z', '+00:00')
    expect(await namesFor(vault.baseUrl, token, `updated_from=${encodeURIComponent(shifted)}`)).toContain('notes')
  })
})

describe('list items', () => {
  it('carry tags, a thumbnail URL and a summary of their files', async () => {
    const [hull] = (await listModels(vault.baseUrl, token, 'q=benchy')).items
    expect(hull).toMatchObject({
      id: ids['Benchy Hull'],
      name: 'Benchy Hull',
      description: 'The classic torture test',
      tags: ['boat', 'Functional'],
      has_thumbnail: true,
      thumbnail_url: `/api/v1/models/${ids['Benchy Hull']}/thumbnail`,
      url: `/api/v1/models/${ids['Benchy Hull']}`,
      file_summary: {
        count: 2,
        formats: ['document', 'stl'],
        total_size: binaryCube(11).length + 'spacer notes'.length,
      },
    })
    const [notes] = (await listModels(vault.baseUrl, token, 'q=notes&file_format=document&tag=boat')).items
    expect(notes).toMatchObject({ has_thumbnail: false, thumbnail_url: null })
  })

  // Both read the lists kept on the model's row (test/model-lists.test.ts holds those to the links and files).
  it("say exactly what each model's own page says: tags (none, two, many) and formats, in the same order", async () => {
    const many = ['zebra', 'Été', 'alpha', 'Beta', 'ete', 'ALPHA2', 'x', 'Y', '10mm', '9mm', 'Ωmega', 'mid']
    await patch(ids['Élan Bracket']!, { tags: many })
    const { items } = await listModels(vault.baseUrl, token, 'limit=200')
    for (const item of items) {
      const detail = await call(vault.baseUrl, 'GET', `/api/v1/models/${item.id}`, { token })
      const { cover_file_id, collections, files, ...summary } = detail.body as Record<string, unknown>
      expect(JSON.stringify(item)).toBe(JSON.stringify(summary))
    }
    const byName = new Map(items.map((item) => [item.name, item]))
    expect(byName.get('plate 7')!.tags).toEqual([])
    expect(byName.get('Benchy Hull')!.tags).toEqual(['boat', 'Functional'])
    expect(byName.get('Élan Bracket')!.tags).toHaveLength(many.length)
    expect(byName.get('Élan Bracket')!.tags.slice(0, 4)).toEqual(['10mm', '9mm', 'alpha', 'ALPHA2'])
    expect(byName.get('Calibration Cube')!.file_summary.formats).toEqual(['gcode', 'stl'])
  })
})

const lowerAscii = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase())
const byteCompare = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
type ListedModel = Awaited<ReturnType<typeof listModels>>['items'][number]
const sortValue: Record<string, (m: ListedModel) => string | number> = {
  name: (m) => lowerAscii(m.name),
  created: (m) => m.created_at,
  updated: (m) => m.updated_at,
  size: (m) => m.file_summary.total_size,
}

describe('sorting and paging', () => {
  for (const sort of ['name', 'created', 'updated', 'size']) {
    for (const order of ['asc', 'desc'] as const) {
      it(`sort=${sort}&order=${order} pages through every model once, in order, ties broken by id`, async () => {
        const all = (await listModels(vault.baseUrl, token, 'limit=200')).items
        const expected = [...all].sort((a, b) => {
          const [x, y] = [sortValue[sort]!(a), sortValue[sort]!(b)]
          const primary = typeof x === 'number' ? x - (y as number) : byteCompare(x, y as string)
          const result = primary !== 0 ? primary : byteCompare(a.id, b.id)
          return order === 'asc' ? result : -result
        })
        const { items, pageSizes } = await listAllPages(vault.baseUrl, token, `sort=${sort}&order=${order}&limit=4`)
        expect(items.map((m) => m.id)).toEqual(expected.map((m) => m.id))
        expect(pageSizes).toEqual([4, 2])
      })
    }
  }

  it('defaults to the most recently updated first, and names A to Z', async () => {
    const all = (await listModels(vault.baseUrl, token)).items
    expect(all.map((m) => m.updated_at)).toEqual(
      all
        .map((m) => m.updated_at)
        .sort()
        .reverse(),
    )
    const byName = (await listModels(vault.baseUrl, token, 'sort=name')).items.map((m) => m.name)
    expect(byName).toEqual(['Benchy Hull', 'Calibration Cube', 'notes', 'orca-part', 'plate 7', 'Élan Bracket'])
  })

  it('a result that fills its last page exactly ends with next_cursor null, not an empty page', async () => {
    const { pageSizes } = await listAllPages(vault.baseUrl, token, 'sort=name&limit=3')
    expect(pageSizes).toEqual([3, 3])
    const { pageSizes: one } = await listAllPages(vault.baseUrl, token, 'limit=6')
    expect(one).toEqual([6])
    const { items, pageSizes: filtered } = await listAllPages(vault.baseUrl, token, 'has_gcode=true&sort=size&limit=1')
    expect(filtered).toEqual([1, 1, 1])
    expect(items).toHaveLength(3)
  })

  it('a model added between pages does not make a page repeat or skip one', async () => {
    const first = await listModels(vault.baseUrl, token, 'sort=name&limit=3')
    await add('Aardvark.txt', 'comes first by name')
    const second = await listModels(
      vault.baseUrl,
      token,
      `sort=name&limit=3&cursor=${encodeURIComponent(first.next_cursor!)}`,
    )
    expect(second.items.map((m) => m.name)).toEqual(['orca-part', 'plate 7', 'Élan Bracket'])
    expect(second.next_cursor).toBeNull()
    expect(
      (
        await call(
          vault.baseUrl,
          'DELETE',
          `/api/v1/models/${(await listModels(vault.baseUrl, token, 'q=aardvark')).items[0]!.id}`,
          { token },
        )
      ).status,
    ).toBe(204)
  })

  it('refuses an altered, foreign or malformed cursor with 400 invalid_cursor', async () => {
    const page = await listModels(vault.baseUrl, token, 'sort=name&limit=2')
    const cursor = page.next_cursor!
    const [payload, signature] = cursor.split('.')
    const forged = Buffer.from(JSON.stringify(['a', '00000000-0000-0000-0000-000000000000'])).toString('base64url')
    const flipped = `${payload!.slice(0, -1)}${payload!.endsWith('A') ? 'B' : 'A'}.${signature}`
    for (const bad of [`${forged}.${signature}`, flipped, 'garbage', `${payload}.`, `${cursor}.x`, `${payload}.%%%`]) {
      expectProblem(
        await call(vault.baseUrl, 'GET', `/api/v1/models?sort=name&limit=2&cursor=${encodeURIComponent(bad)}`, {
          token,
        }),
        400,
        'invalid_cursor',
      )
    }
    // A good cursor used with another sort, order or filter.
    for (const other of [
      'sort=size&limit=2',
      'sort=name&order=desc&limit=2',
      'sort=name&limit=2&tag=boat',
      'sort=name&limit=2&q=cube',
    ]) {
      expectProblem(
        await call(vault.baseUrl, 'GET', `/api/v1/models?${other}&cursor=${encodeURIComponent(cursor)}`, { token }),
        400,
        'invalid_cursor',
      )
    }
    // The same query with another limit may go on.
    expect(
      (
        await call(vault.baseUrl, 'GET', `/api/v1/models?sort=name&limit=3&cursor=${encodeURIComponent(cursor)}`, {
          token,
        })
      ).status,
    ).toBe(200)
  })

  it('refuses a limit over 200, below 1 or not a number, and unknown sorts, formats and dates with 422', async () => {
    expect((await listModels(vault.baseUrl, token, 'limit=200')).items.length).toBe(6)
    for (const query of [
      'limit=201',
      'limit=0',
      'limit=ten',
      'limit=1.5',
      'sort=size_desc',
      'order=up',
      'file_format=exe',
      'has_gcode=yes',
      'created_from=yesterday',
      'updated_to=2026-13-01T00:00:00Z',
    ]) {
      const reply = await call(vault.baseUrl, 'GET', `/api/v1/models?${query}`, { token })
      const problem = expectProblem(reply, 422, 'validation_failed')
      expect(problem.errors[0].path).toMatch(/^query\./)
    }
  })

  it('needs a signed-in user', async () => {
    expectProblem(await call(vault.baseUrl, 'GET', '/api/v1/models'), 401, 'missing_token')
  })
})

describe('literal paths', () => {
  it('/models/stats and /models/export are never taken as a model id', async () => {
    const stats = await call(vault.baseUrl, 'GET', '/api/v1/models/stats', { token })
    expect(stats.status).toBe(200)
    expect(stats.body.totals.models).toBe(6)
    const exported = await fetch(`${vault.baseUrl}/api/v1/models/export?format=json`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(exported.status).toBe(200)
    expect((await exported.json()).models).toHaveLength(6)
    expectProblem(await call(vault.baseUrl, 'GET', '/api/v1/models/statsx', { token }), 404, 'not_found')
    expectProblem(
      await call(vault.baseUrl, 'PATCH', '/api/v1/models/stats', { token, json: { name: 'x' } }),
      404,
      'not_found',
    )
  })
})
