import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, expectProblem, signIn } from './support/accounts.js'
import { gcodeText, listAllPages, parseCsv } from './support/library.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

let vault: TestVault
let token: string
let tricky: string

const download = (query: string) =>
  fetch(`${vault.baseUrl}/api/v1/models/export?${query}`, { headers: { Authorization: `Bearer ${token}` } })

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
  const cube = (await upload(vault.baseUrl, token, 'Cube.stl', binaryCube(10))).body.model.id
  await upload(
    vault.baseUrl,
    token,
    'cube.gcode',
    gcodeText({ slicer: 'PrusaSlicer', printer: 'MK4', filamentType: 'PLA' }),
    { model_id: cube },
  )
  tricky = (await upload(vault.baseUrl, token, 'tricky.txt', 'x')).body.model.id
  await call(vault.baseUrl, 'PATCH', `/api/v1/models/${tricky}`, {
    token,
    json: {
      name: '=HYPERLINK("http://evil.example","click")',
      description: '\tline one, with "quotes"\r\nline two',
      tags: ['+plus', '-minus', '@at', 'plain'],
    },
  })
  const collection = (await call(vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: '=cmd|calc' } }))
    .body.id
  await call(vault.baseUrl, 'PUT', `/api/v1/collections/${collection}/models/${tricky}`, { token })
  // Enough models for the export to span several pages of its database reads (100 per page).
  for (let batch = 0; batch < 11; batch++) {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        upload(vault.baseUrl, token, `bulk-${batch}-${i}.txt`, `bulk ${batch} ${i}`),
      ),
    )
  }
})
afterAll(async () => vault?.close())

describe('JSON export', () => {
  it('streams every model exactly as the detail endpoint shows it, as a dated download', async () => {
    const res = await download('format=json')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="model-vault-models-\d{4}-\d{2}-\d{2}\.json"$/,
    )
    const body = JSON.parse(await res.text())
    expect(body).toMatchObject({ format: 'model-vault.models', version: 1 })
    expect(Date.parse(body.exported_at)).not.toBeNaN()
    const listed = (await listAllPages(vault.baseUrl, token, 'limit=200')).items
    expect(body.models).toHaveLength(112)
    expect(body.models.map((m: { id: string }) => m.id)).toEqual(listed.map((m) => m.id))
    for (const model of body.models.filter((m: { name: string }) => !m.name.startsWith('bulk'))) {
      expect(model).toEqual((await call(vault.baseUrl, 'GET', `/api/v1/models/${model.id}`, { token })).body)
    }
    const cube = body.models.find((m: { name: string }) => m.name === 'Cube')
    expect(cube.files.map((f: { format: string }) => f.format)).toEqual(['stl', 'gcode'])
    expect(cube.files[1].metadata.gcode.slicer.name).toBe('PrusaSlicer')
  })

  it('takes the list filters and sort', async () => {
    const body = await (await download('format=json&tag=PLAIN&sort=name')).json()
    expect(body.models.map((m: { id: string }) => m.id)).toEqual([tricky])
    const none = await (await download('format=json&q=nothing-matches-this')).json()
    expect(none.models).toEqual([])
  })
})

describe('CSV export', () => {
  it('is RFC 4180 with a header row, one row per model, multi-valued cells one value per line', async () => {
    const res = await download('format=csv&sort=name')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present')
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="model-vault-models-\d{4}-\d{2}-\d{2}\.csv"$/,
    )
    const rows = parseCsv(await res.text())
    expect(rows[0]).toEqual([
      'id',
      'name',
      'description',
      'tags',
      'collections',
      'file_count',
      'total_size',
      'formats',
      'files',
      'slicers',
      'created_at',
      'updated_at',
    ])
    expect(rows).toHaveLength(1 + 112)
    const cube = rows.find((row) => row[1] === 'Cube')!
    expect(cube.slice(5, 10)).toEqual([
      '2',
      String(binaryCube(10).length + gcodeText({ slicer: 'PrusaSlicer', printer: 'MK4', filamentType: 'PLA' }).length),
      'gcode\nstl',
      'Cube.stl\ncube.gcode',
      'PrusaSlicer',
    ])
  })

  it('neutralises cells a spreadsheet would run as formulas, and keeps commas, quotes and line breaks', async () => {
    const rows = parseCsv(await (await download('format=csv&tag=plain')).text())
    expect(rows).toHaveLength(2)
    const [id, name, description, tags, collections] = rows[1]!
    expect(id).toBe(tricky)
    expect(name).toBe(`'=HYPERLINK("http://evil.example","click")`)
    expect(description).toBe(`'\tline one, with "quotes"\r\nline two`)
    // Tags in name order: the cell starts with "+plus", and only the cell's start counts.
    expect(tags).toBe("'+plus\n-minus\n@at\nplain")
    expect(collections).toBe("'=cmd|calc")
  })
})

describe('export input', () => {
  it('answers 422 for a missing or unknown format, or a bad filter', async () => {
    for (const query of ['', 'format=xml', 'format=JSON', 'format=csv&sort=colour']) {
      const res = await call(vault.baseUrl, 'GET', `/api/v1/models/export${query ? `?${query}` : ''}`, { token })
      expectProblem(res, 422, 'validation_failed')
    }
  })
})
