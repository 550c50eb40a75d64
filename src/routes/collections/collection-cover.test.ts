import { describe, expect, it } from 'vitest'
import { callApi, postUpload } from '../../../test/support/in-process-api.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'

const suite = setUpInProcessSuite()

interface Collection {
  id: string
  cover_model_id: string | null
  cover_chosen: boolean
}
interface Problem {
  code: string
  errors?: { path: string }[]
}

let cubeSize = 900
/** A model of one cube (so with a rendered thumbnail), put in the collection `collectionId`. */
async function modelIn(collectionId: string, name: string): Promise<string> {
  const made = await postUpload<{ model: { id: string } }>(suite, `${name}.stl`, binaryCube(cubeSize++))
  const { id } = made.body.model
  await suite.vault.deps.analysis.idle()
  expect((await callApi(suite, 'PUT', `/api/v1/collections/${collectionId}/models/${id}`)).status).toBe(204)
  return id
}

const read = async (id: string) => (await callApi<Collection>(suite, 'GET', `/api/v1/collections/${id}`)).body
const choose = (id: string, cover: string | null) =>
  callApi<Collection & Problem>(suite, 'PATCH', `/api/v1/collections/${id}`, { cover_model_id: cover })

describe('a collection cover', () => {
  it('is the first model with a thumbnail until one is chosen; a chosen one that leaves gives way', async () => {
    const made = await callApi<Collection>(suite, 'POST', '/api/v1/collections', { name: 'Covered shelf' })
    const shelf = made.body.id
    expect(made.body).toMatchObject({ cover_model_id: null, cover_chosen: false })
    const zebra = await modelIn(shelf, 'Zebra stand')
    const apple = await modelIn(shelf, 'Apple holder')
    expect(await read(shelf)).toMatchObject({ cover_model_id: apple, cover_chosen: false })

    const chosen = await choose(shelf, zebra)
    expect(chosen.status).toBe(200)
    expect(chosen.body).toMatchObject({ cover_model_id: zebra, cover_chosen: true })
    // Listed the same way.
    const listed = await callApi<{ items: Collection[] }>(suite, 'GET', '/api/v1/collections')
    expect(listed.body.items.find((item) => item.id === shelf)).toMatchObject({ cover_model_id: zebra })

    // Taken out of the collection, the chosen model is no longer its cover.
    expect((await callApi(suite, 'DELETE', `/api/v1/collections/${shelf}/models/${zebra}`)).status).toBe(204)
    expect(await read(shelf)).toMatchObject({ cover_model_id: apple, cover_chosen: false })
    expect((await choose(shelf, apple)).body).toMatchObject({ cover_model_id: apple, cover_chosen: true })
    // Deleted, it goes too (the column is set to null).
    expect((await callApi(suite, 'DELETE', `/api/v1/models/${apple}`)).status).toBe(204)
    expect(await read(shelf)).toMatchObject({ cover_model_id: null, cover_chosen: false })
  })

  it('refuses a model that is not in the collection, an unknown one and a bad id, changing nothing', async () => {
    const shelf = (await callApi<Collection>(suite, 'POST', '/api/v1/collections', { name: 'Strict shelf' })).body.id
    const member = await modelIn(shelf, 'Member')
    const other = (await postUpload<{ model: { id: string } }>(suite, 'Outsider.stl', binaryCube(cubeSize++))).body
      .model.id
    for (const cover of [other, crypto.randomUUID()]) {
      const refused = await choose(shelf, cover)
      expect(refused.status).toBe(422)
      expect(refused.body.errors?.map((error) => error.path)).toEqual(['body.cover_model_id'])
    }
    expect((await choose(shelf, 'not an id')).status).toBe(422)
    expect(await read(shelf)).toMatchObject({ cover_model_id: member, cover_chosen: false })
    // Null goes back to the first model: allowed, and a no-op here.
    expect((await choose(shelf, null)).body).toMatchObject({ cover_model_id: member, cover_chosen: false })
  })
})
