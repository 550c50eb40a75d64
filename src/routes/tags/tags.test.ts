import { describe, expect, it } from 'vitest'
import { callApi, postUpload } from '../../../test/support/in-process-api.js'
import { recountLibrary } from '../../../test/support/library-recount.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'
import { libraryStats } from '../../core/library/stats.js'

const suite = setUpInProcessSuite()

interface Tag {
  name: string
  model_count: number
  merged?: boolean
}

let cubeSize = 600
/** A new model carrying `tags`; its id. */
async function taggedModel(name: string, tags: string[]): Promise<string> {
  const made = await postUpload<{ model: { id: string } }>(suite, `${name}.stl`, binaryCube(cubeSize++), {
    model_name: name,
  })
  expect((await callApi(suite, 'PATCH', `/api/v1/models/${made.body.model.id}`, { tags })).status).toBe(200)
  return made.body.model.id
}

const tagsOf = async (id: string) => (await callApi<{ tags: string[] }>(suite, 'GET', `/api/v1/models/${id}`)).body.tags
const listed = async () => (await callApi<{ items: Tag[] }>(suite, 'GET', '/api/v1/tags')).body.items
const listedNamed = async (name: string) =>
  (await listed()).find((tag) => tag.name.toLowerCase() === name.toLowerCase())
/** The ids of the models a list filter or search finds, sorted. */
const found = async (query: string) =>
  (await callApi<{ items: { id: string; tags: string[] }[] }>(suite, 'GET', `/api/v1/models?${query}`)).body.items
    .map((item) => item.id)
    .sort()
const tagPath = (name: string) => `/api/v1/tags/${encodeURIComponent(name)}`

async function expectCountsExact() {
  const { db } = suite.vault.deps.database
  expect(await libraryStats(db)).toEqual(await recountLibrary(db))
}

describe('renaming a tag', () => {
  it('renames it on every model: the list, the filter, search and the model lists follow', async () => {
    const a = await taggedModel('Rename A', ['calib-old', 'keep'])
    const b = await taggedModel('Rename B', ['Calib-Old'])
    const renamed = await callApi<Tag>(suite, 'PATCH', tagPath('CALIB-OLD'), { name: 'Calibration Test' })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ name: 'Calibration Test', model_count: 2, merged: false })
    expect(await tagsOf(a)).toEqual(['Calibration Test', 'keep'])
    expect(await tagsOf(b)).toEqual(['Calibration Test'])
    expect(await listedNamed('calib-old')).toBeUndefined()
    expect(await found(`tag=${encodeURIComponent('calibration test')}`)).toEqual([a, b].sort())
    expect(await found('tag=calib-old')).toEqual([])
    expect(await found('q=Calibration')).toEqual([a, b].sort())
    const list = await callApi<{ items: { id: string; tags: string[] }[] }>(suite, 'GET', '/api/v1/models?q=Rename')
    expect(list.body.items.find((item) => item.id === b)?.tags).toEqual(['Calibration Test'])
    await expectCountsExact()
  })

  it('respells a tag when only the case changes', async () => {
    const a = await taggedModel('Respell', ['benchy-test'])
    const renamed = await callApi<Tag>(suite, 'PATCH', tagPath('benchy-test'), { name: 'Benchy-Test' })
    expect(renamed.body).toMatchObject({ name: 'Benchy-Test', model_count: 1, merged: false })
    expect(await tagsOf(a)).toEqual(['Benchy-Test'])
  })

  it('merges into a tag that has the new name: each model carries the one tag once', async () => {
    const onlyOld = await taggedModel('Merge Old', ['mini'])
    const onlyNew = await taggedModel('Merge New', ['miniature'])
    const both = await taggedModel('Merge Both', ['mini', 'miniature'])
    const merged = await callApi<Tag>(suite, 'PATCH', tagPath('mini'), { name: 'Miniature' })
    expect(merged.status).toBe(200)
    expect(merged.body).toMatchObject({ name: 'Miniature', model_count: 3, merged: true })
    for (const id of [onlyOld, onlyNew, both]) expect(await tagsOf(id)).toEqual(['Miniature'])
    expect(await listedNamed('mini')).toBeUndefined()
    expect(await found('tag=miniature')).toEqual([onlyOld, onlyNew, both].sort())
    expect(await found('q=mini')).toEqual([onlyOld, onlyNew, both].sort())
    await expectCountsExact()
  })

  it('takes names with spaces and slashes in the path', async () => {
    const a = await taggedModel('Path Names', ['print in place / v2'])
    const renamed = await callApi<Tag>(suite, 'PATCH', tagPath('print in place / v2'), { name: 'pip' })
    expect(renamed.status).toBe(200)
    expect(await tagsOf(a)).toEqual(['pip'])
  })

  it('refuses an unknown tag with 404 and a bad name with 422, changing nothing', async () => {
    const a = await taggedModel('Refusals', ['solid'])
    expect((await callApi(suite, 'PATCH', tagPath('no-such-tag'), { name: 'x' })).status).toBe(404)
    for (const body of [{ name: 'a,b' }, { name: '' }, { name: 'x'.repeat(65) }, { name: 'ok', extra: 1 }, {}]) {
      const refused = await callApi<{ code: string }>(suite, 'PATCH', tagPath('solid'), body)
      expect(refused.status).toBe(422)
      expect(refused.body.code).toBe('validation_failed')
    }
    expect(await tagsOf(a)).toEqual(['solid'])
  })
})

describe('deleting a tag', () => {
  it('takes it off every model; the models stay', async () => {
    const a = await taggedModel('Delete A', ['stray', 'kept-tag'])
    const b = await taggedModel('Delete B', ['STRAY'])
    const deleted = await callApi(suite, 'DELETE', tagPath('Stray'))
    expect(deleted.status).toBe(204)
    expect(await tagsOf(a)).toEqual(['kept-tag'])
    expect(await tagsOf(b)).toEqual([])
    expect(await listedNamed('stray')).toBeUndefined()
    expect(await found('tag=stray')).toEqual([])
    expect(await found('q=stray')).toEqual([])
    expect((await callApi(suite, 'DELETE', tagPath('stray'))).status).toBe(404)
    await expectCountsExact()
  })

  it('can be used again after it was deleted', async () => {
    await taggedModel('Again A', ['reused'])
    expect((await callApi(suite, 'DELETE', tagPath('reused'))).status).toBe(204)
    const b = await taggedModel('Again B', ['Reused'])
    expect(await listedNamed('reused')).toMatchObject({ model_count: 1 })
    expect(await found('tag=reused')).toEqual([b])
  })
})
