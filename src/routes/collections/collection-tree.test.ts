import { describe, expect, it } from 'vitest'
import { callApi, postUpload } from '../../../test/support/in-process-api.js'
import { recountLibrary } from '../../../test/support/library-recount.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'
import { libraryStats } from '../../core/library/stats.js'

const suite = setUpInProcessSuite()

interface Collection {
  id: string
  name: string
  parent_id: string | null
  child_count: number
  model_count: number
}
interface Problem {
  code: string
  errors?: { path: string }[]
}

let cubeSize = 700
let serial = 0
/** A new collection named `name` plus a unique number, inside `parent` (at the top when null). */
async function collection(name: string, parent: string | null = null): Promise<Collection> {
  const made = await callApi<Collection>(suite, 'POST', '/api/v1/collections', {
    name: `${name} ${serial++}`,
    parent_id: parent,
  })
  expect(made.status, JSON.stringify(made.body)).toBe(201)
  return made.body
}
async function modelIn(collectionId: string): Promise<string> {
  const made = await postUpload<{ model: { id: string } }>(suite, 'part.stl', binaryCube(cubeSize++), {
    model_name: `Part ${cubeSize}`,
  })
  const put = await callApi(suite, 'PUT', `/api/v1/collections/${collectionId}/models/${made.body.model.id}`)
  expect(put.status).toBe(204)
  return made.body.model.id
}
const get = async (id: string) => (await callApi<Collection>(suite, 'GET', `/api/v1/collections/${id}`)).body
const move = (id: string, parent: string | null) =>
  callApi<Collection & Problem>(suite, 'PATCH', `/api/v1/collections/${id}`, { parent_id: parent })
/** The ids of the models the list finds with this query, sorted. */
const found = async (query: string) =>
  (await callApi<{ items: { id: string }[] }>(suite, 'GET', `/api/v1/models?${query}`)).body.items
    .map((item) => item.id)
    .sort()
async function expectCountsExact() {
  const { db } = suite.vault.deps.database
  expect(await libraryStats(db)).toEqual(await recountLibrary(db))
}
/** A chain of `levels` collections, each inside the one before; the top first. */
async function chain(levels: number): Promise<Collection[]> {
  const made: Collection[] = []
  for (let level = 0; level < levels; level++)
    made.push(await collection(`Level ${level + 1}`, made.at(-1)?.id ?? null))
  return made
}

describe('a tree of collections', () => {
  it('nests on creation: the list names each parent and counts its children', async () => {
    const top = await collection('Terrain')
    const walls = await collection('Walls', top.id)
    await collection('Doors', top.id)
    const ruins = await collection('Ruins', walls.id)
    expect(top).toMatchObject({ parent_id: null, child_count: 0 })
    expect(await get(top.id)).toMatchObject({ parent_id: null, child_count: 2 })
    expect(await get(walls.id)).toMatchObject({ parent_id: top.id, child_count: 1 })
    const listed = (await callApi<{ items: Collection[] }>(suite, 'GET', '/api/v1/collections')).body.items
    expect(listed.find((item) => item.id === ruins.id)).toMatchObject({ parent_id: walls.id, child_count: 0 })
  })

  it('moves a collection with everything inside it, and back to the top', async () => {
    const [a, b] = await chain(2)
    const other = await collection('Other')
    const moved = await move(b!.id, other.id)
    expect(moved.status).toBe(200)
    expect(moved.body).toMatchObject({ parent_id: other.id })
    expect(await get(a!.id)).toMatchObject({ child_count: 0 })
    expect(await get(other.id)).toMatchObject({ child_count: 1 })
    expect((await move(b!.id, null)).body).toMatchObject({ parent_id: null })
    expect(await get(other.id)).toMatchObject({ child_count: 0 })
  })

  it('refuses a move into itself or into a collection inside it (422), leaving the tree as it was', async () => {
    const [a, b, c] = await chain(3)
    for (const target of [a!, c!]) {
      const refused = await move(a!.id, target.id)
      expect(refused.status).toBe(422)
      expect(refused.body.errors?.map((error) => error.path)).toEqual(['body.parent_id'])
    }
    expect(await get(a!.id)).toMatchObject({ parent_id: null })
    expect(await get(c!.id)).toMatchObject({ parent_id: b!.id })
  })

  it('nests at most 8 deep, on creation and on moves of a subtree', async () => {
    const levels = await chain(8)
    expect(
      (await callApi(suite, 'POST', '/api/v1/collections', { name: `Ninth ${serial++}`, parent_id: levels[7]!.id }))
        .status,
    ).toBe(422)
    const [twoTop, twoBottom] = await chain(2)
    // Two levels under the seventh would make nine.
    expect((await move(twoTop!.id, levels[6]!.id)).status).toBe(422)
    expect(await get(twoTop!.id)).toMatchObject({ parent_id: null })
    expect((await move(twoTop!.id, levels[5]!.id)).status).toBe(200)
    expect((await move(twoBottom!.id, levels[7]!.id)).status).toBe(422)
  })

  it('refuses unknown parents with 422 and a null or bad parent id on creation means the top or 422', async () => {
    const unknown = await callApi<Problem>(suite, 'POST', '/api/v1/collections', { name: 'Orphan', parent_id: 'nope' })
    expect(unknown.status).toBe(422)
    expect(unknown.body.errors?.map((error) => error.path)).toEqual(['body.parent_id'])
    const top = await collection('Topmost')
    expect((await move(top.id, 'nope')).status).toBe(422)
    for (const bad of [42, '', 'a\u0000b'])
      expect((await callApi(suite, 'PATCH', `/api/v1/collections/${top.id}`, { parent_id: bad })).status).toBe(422)
    expect((await move('nope', top.id)).status).toBe(404)
  })

  it('keeps a collection with collections inside it from deletion (409); empty ones go', async () => {
    const [a, b] = await chain(2)
    const refused = await callApi<Problem>(suite, 'DELETE', `/api/v1/collections/${a!.id}`)
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('collection_has_children')
    expect((await callApi(suite, 'DELETE', `/api/v1/collections/${b!.id}`)).status).toBe(204)
    expect((await callApi(suite, 'DELETE', `/api/v1/collections/${a!.id}`)).status).toBe(204)
    expect((await callApi(suite, 'GET', `/api/v1/collections/${a!.id}`)).status).toBe(404)
  })
})

describe('filtering the model list by a collection of the tree', () => {
  it('lists the collection’s own models, or with include_descendants those of every collection inside it, once each', async () => {
    const [top, middle, bottom] = await chain(3)
    const elsewhere = await collection('Elsewhere')
    const inTop = await modelIn(top!.id)
    const inBottom = await modelIn(bottom!.id)
    const inBoth = await modelIn(middle!.id)
    await callApi(suite, 'PUT', `/api/v1/collections/${bottom!.id}/models/${inBoth}`)
    await modelIn(elsewhere.id)

    expect(await found(`collection=${top!.id}`)).toEqual([inTop])
    expect(await found(`collection=${top!.id}&include_descendants=false`)).toEqual([inTop])
    expect(await found(`collection=${top!.id}&include_descendants=true`)).toEqual([inTop, inBottom, inBoth].sort())
    expect(await found(`collection=${middle!.id}&include_descendants=true`)).toEqual([inBottom, inBoth].sort())
    expect(await found('collection=nope&include_descendants=true')).toEqual([])
    // Moving the bottom collection out takes its models out of the subtree.
    await move(bottom!.id, elsewhere.id)
    expect(await found(`collection=${top!.id}&include_descendants=true`)).toEqual([inTop, inBoth].sort())
    expect((await get(bottom!.id)).model_count).toBe(2)
    await expectCountsExact()
    expect((await callApi(suite, 'GET', '/api/v1/models?include_descendants=maybe')).status).toBe(422)
  })
})
