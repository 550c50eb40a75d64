import { describe, expect, it } from 'vitest'
import { callApi, postUpload, rowCount } from '../../../test/support/in-process-api.js'
import { recountLibrary } from '../../../test/support/library-recount.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'
import { applyToModels } from '../../core/library/bulk.js'
import { libraryStats } from '../../core/library/stats.js'

const suite = setUpInProcessSuite()

interface Model {
  id: string
  tags: string[]
  collections: { id: string }[]
  files: { id: string }[]
}
interface Outcome {
  models: number
  files: number
}

let cubeSize = 900
/** A new model with `tags` and one part (two with `second`); its id. */
async function modelWith(name: string, tags: string[], second = false): Promise<string> {
  const made = await postUpload<{ model: { id: string } }>(suite, `${name}.stl`, binaryCube(cubeSize++), {
    model_name: name,
  })
  const id = made.body.model.id
  if (second) await postUpload(suite, `${name}-b.stl`, binaryCube(cubeSize++), { model_id: id })
  expect((await callApi(suite, 'PATCH', `/api/v1/models/${id}`, { tags })).status).toBe(200)
  return id
}

const model = async (id: string) => (await callApi<Model>(suite, 'GET', `/api/v1/models/${id}`)).body
const bulk = (body: unknown) => callApi<Outcome>(suite, 'POST', '/api/v1/models/bulk', body)
const found = async (query: string) =>
  (await callApi<{ items: { id: string }[] }>(suite, 'GET', `/api/v1/models?${query}`)).body.items
    .map((m) => m.id)
    .sort()
const newCollection = async (name: string) =>
  (await callApi<{ id: string }>(suite, 'POST', '/api/v1/collections', { name })).body.id

async function expectCountsExact() {
  const { db } = suite.vault.deps.database
  expect(await libraryStats(db)).toEqual(await recountLibrary(db))
}

describe('tagging many models', () => {
  it('adds tags to models by id, counting only the models that gained one; search and filters follow', async () => {
    const a = await modelWith('Bulk Tag A', ['keep'])
    const b = await modelWith('Bulk Tag B', ['Printed'])
    const added = await bulk({ model_ids: [a, b, 'no-such-model'], action: { type: 'add_tags', tags: ['printed'] } })
    expect(added).toEqual({ status: 200, body: { models: 1, files: 1 } })
    expect((await model(a)).tags).toEqual(['keep', 'Printed'])
    expect((await model(b)).tags).toEqual(['Printed'])
    expect(await found('tag=printed&tag=keep')).toEqual([a])
    expect(await found('q=printed')).toEqual([a, b].sort())
    await expectCountsExact()
  })

  it('removes tags from every model matching a filter, however the removal changes the filter', async () => {
    const keeping = await modelWith('Bulk Untag A', ['untag-me', 'stays'])
    const ids = [
      keeping,
      await modelWith('Bulk Untag B', ['Untag-Me']),
      await modelWith('Bulk Untag C', ['untag-me'], true),
    ]
    const other = await modelWith('Bulk Untag Other', ['untag-me-not'])
    const counted = await bulk({
      filter: { tag: ['untag-me'] },
      action: { type: 'remove_tags', tags: ['UNTAG-ME'] },
      dry_run: true,
    })
    expect(counted.body).toEqual({ models: 3, files: 4 })
    expect(await found('tag=untag-me')).toEqual([...ids].sort())
    const removed = await bulk({ filter: { tag: ['untag-me'] }, action: { type: 'remove_tags', tags: ['UNTAG-ME'] } })
    expect(removed.body).toEqual({ models: 3, files: 4 })
    expect(await found('tag=untag-me')).toEqual([])
    expect((await model(keeping)).tags).toEqual(['stays'])
    expect((await model(other)).tags).toEqual(['untag-me-not'])
    await expectCountsExact()
  })
})

describe('collecting many models', () => {
  it('adds models by id and by filter to a collection, then takes them out; the collection filter follows', async () => {
    const shelf = await newCollection('Bulk Shelf')
    const a = await modelWith('Bulk Shelf A', ['shelf-pick'])
    const b = await modelWith('Bulk Shelf B', ['shelf-pick'])
    const c = await modelWith('Bulk Shelf C', [])
    expect((await bulk({ model_ids: [c], action: { type: 'add_to_collection', collection_id: shelf } })).body).toEqual({
      models: 1,
      files: 1,
    })
    const byFilter = await bulk({
      filter: { tag: ['shelf-pick'] },
      action: { type: 'add_to_collection', collection_id: shelf },
    })
    expect(byFilter.body).toEqual({ models: 2, files: 2 })
    expect(await found(`collection=${shelf}`)).toEqual([a, b, c].sort())
    await expectCountsExact()
    const out = await bulk({
      filter: { collection: shelf, tag: ['shelf-pick'] },
      action: { type: 'remove_from_collection', collection_id: shelf },
    })
    expect(out.body).toEqual({ models: 2, files: 2 })
    expect(await found(`collection=${shelf}`)).toEqual([c])
    expect(
      (await bulk({ model_ids: [c], action: { type: 'remove_from_collection', collection_id: shelf } })).body.models,
    ).toBe(1)
    expect(await found(`collection=${shelf}`)).toEqual([])
    await expectCountsExact()
  })
})

describe('deleting many models', () => {
  it('counts, then deletes the models matching a filter with their files and stored bytes', async () => {
    const doomed = [await modelWith('Bulk Doomed A', ['doomed'], true), await modelWith('Bulk Doomed B', ['doomed'])]
    const spared = await modelWith('Bulk Spared', ['spared'])
    const files = (await Promise.all(doomed.map(model))).flatMap((m) => m.files)
    const before = { models: await rowCount(suite, 'models'), files: await rowCount(suite, 'files') }
    const counted = await bulk({ filter: { tag: ['doomed'] }, action: { type: 'delete' }, dry_run: true })
    expect(counted.body).toEqual({ models: 2, files: 3 })
    expect(await rowCount(suite, 'models')).toBe(before.models)
    const deleted = await bulk({ filter: { tag: ['doomed'] }, action: { type: 'delete' } })
    expect(deleted.body).toEqual({ models: 2, files: 3 })
    expect(await rowCount(suite, 'models')).toBe(before.models - 2)
    expect(await rowCount(suite, 'files')).toBe(before.files - 3)
    for (const id of doomed) expect((await callApi(suite, 'GET', `/api/v1/models/${id}`)).status).toBe(404)
    for (const file of files) {
      const content = await suite.vault.app.request(`/api/v1/files/${file.id}/content`, {
        headers: { Authorization: suite.authorization },
      })
      expect(content.status).toBe(404)
    }
    expect((await model(spared)).files).toHaveLength(1)
    await expectCountsExact()
  })

  it('deletes models by id, skipping ids of no model', async () => {
    const a = await modelWith('Bulk Gone A', [])
    const b = await modelWith('Bulk Gone B', [])
    expect((await bulk({ model_ids: [a, b, a, 'nothing'], action: { type: 'delete' } })).body).toEqual({
      models: 2,
      files: 2,
    })
    expect((await callApi(suite, 'GET', `/api/v1/models/${b}`)).status).toBe(404)
    await expectCountsExact()
  })
})

describe('refusing a bad bulk request', () => {
  it('answers problem+json for no selection, both selections, too many ids, an unknown action and an unknown collection', async () => {
    const a = await modelWith('Bulk Refusals', ['refused'])
    const tooMany = Array.from({ length: 1_001 }, (_, i) => `id-${i}`)
    const refusals: [unknown, number][] = [
      [{ action: { type: 'delete' } }, 422],
      [{ model_ids: [], action: { type: 'delete' } }, 422],
      [{ model_ids: [a], filter: {}, action: { type: 'delete' } }, 422],
      [{ model_ids: tooMany, action: { type: 'delete' } }, 422],
      [{ model_ids: [a], action: { type: 'explode' } }, 422],
      [{ model_ids: [a], action: { type: 'add_tags', tags: [] } }, 422],
      [{ model_ids: [a], action: { type: 'add_tags', tags: ['a,b'] } }, 422],
      [{ filter: { sort: 'name' }, action: { type: 'delete' } }, 422],
      [{ filter: { has_gcode: 'maybe' }, action: { type: 'delete' } }, 422],
      [{ model_ids: [a], action: { type: 'add_to_collection', collection_id: 'no-such-collection' } }, 404],
      [{ model_ids: [a], action: { type: 'remove_from_collection' } }, 422],
    ]
    for (const [body, status] of refusals) {
      const answer = await suite.vault.app.request('/api/v1/models/bulk', {
        method: 'POST',
        headers: { Authorization: suite.authorization, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect([JSON.stringify(body).slice(0, 80), answer.status]).toEqual([JSON.stringify(body).slice(0, 80), status])
      expect(answer.headers.get('Content-Type')).toContain('application/problem+json')
    }
    expect(await model(a)).toMatchObject({ tags: ['refused'] })
  })
})

describe('walking a selection page by page', () => {
  it('skips no model when each page takes its models out of the filter, nor when it deletes them', async () => {
    const ids = []
    for (let n = 0; n < 5; n++) ids.push(await modelWith(`Bulk Paged ${n}`, ['paged']))
    const { deps } = suite.vault
    // Pages of two: the walk crosses three pages, each changing what the filter matches.
    const untagged = await applyToModels(
      deps,
      { filters: { tags: ['paged'] } },
      { type: 'remove_tags', tags: ['paged'] },
      {
        dryRun: false,
        pageSize: 2,
      },
    )
    expect(untagged).toEqual({ models: 5, files: 5 })
    expect(await found('tag=paged')).toEqual([])
    await bulk({ model_ids: ids, action: { type: 'add_tags', tags: ['paged'] } })
    const deleted = await applyToModels(
      deps,
      { filters: { tags: ['paged'] } },
      { type: 'delete' },
      { dryRun: false, pageSize: 2 },
    )
    expect(deleted).toEqual({ models: 5, files: 5 })
    for (const id of ids) expect((await callApi(suite, 'GET', `/api/v1/models/${id}`)).status).toBe(404)
    await expectCountsExact()
  })
})
