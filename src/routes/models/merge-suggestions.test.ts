import { describe, expect, it } from 'vitest'
import { callApi, postUpload } from '../../../test/support/in-process-api.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'

const suite = setUpInProcessSuite()

interface Suggested {
  id: string
  name: string
  file_count: number
}
interface Group {
  reasons: string[]
  target: Suggested
  others: Suggested[]
}

let cubeSize = 600
const encode = (text: string) => new TextEncoder().encode(text)
const unique = () => crypto.randomUUID().slice(0, 8)

/** A new model holding one file, named `name`. */
async function modelOf(name: string, file: string, content: Uint8Array): Promise<string> {
  const made = await postUpload<{ model: { id: string } }>(suite, file, content, { model_name: name })
  expect(made.status).toBe(201)
  return made.body.model.id
}
const gcode = () => encode(`; sliced ${crypto.randomUUID()}\nG1 X1\n`)

const suggestions = async () =>
  (await callApi<{ groups: Group[]; total: number }>(suite, 'GET', '/api/v1/models/merge-suggestions?limit=200')).body
/** The group holding `id`, as ids (target first, others sorted). */
async function groupOf(id: string) {
  const group = (await suggestions()).groups.find((g) => [g.target, ...g.others].some((m) => m.id === id))
  return group && { reasons: group.reasons, target: group.target.id, others: group.others.map((m) => m.id).sort() }
}
const dismiss = <T = unknown>(modelIds: unknown) =>
  callApi<T>(suite, 'POST', '/api/v1/models/merge-suggestions/dismiss', { model_ids: modelIds })

describe('merge suggestions', () => {
  it('groups models whose names are equal but for case and separators, oldest as the target', async () => {
    const name = `Shape Box ${unique()}`
    const first = await modelOf(name, 'a.stl', binaryCube(cubeSize++))
    const second = await modelOf(name.toUpperCase().replaceAll(' ', '_'), 'b.stl', binaryCube(cubeSize++))
    expect(await groupOf(second)).toEqual({ reasons: ['same_name'], target: first, others: [second] })
  })

  it('groups a G-code model with the model holding the mesh it names, that one as the target', async () => {
    const key = `dragon${unique()}`
    const sliced = await modelOf(`Print ${unique()}`, `${key}_0.2mm_PLA.gcode`, gcode())
    const mesh = await modelOf(`Mesh ${unique()}`, `${key}.stl`, binaryCube(cubeSize++))
    expect(await groupOf(sliced)).toEqual({ reasons: ['gcode_names_mesh'], target: mesh, others: [sliced] })
  })

  it('joins overlapping pairs into one group with both reasons', async () => {
    const key = `vase${unique()}`
    const name = `Vase ${unique()}`
    const sliced = await modelOf(name, `${key}.gcode`, gcode())
    const twin = await modelOf(name, 'other.stl', binaryCube(cubeSize++))
    const mesh = await modelOf(`Mesh ${unique()}`, `${key}.stl`, binaryCube(cubeSize++))
    expect(await groupOf(twin)).toEqual({
      reasons: ['gcode_names_mesh', 'same_name'],
      target: mesh,
      others: [sliced, twin].sort(),
    })
  })

  it('does not offer a dismissed group again until another model joins it, and forgets a deleted model', async () => {
    const name = `Bracket ${unique()}`
    const a = await modelOf(name, 'a.stl', binaryCube(cubeSize++))
    const b = await modelOf(name, 'b.stl', binaryCube(cubeSize++))
    expect((await dismiss([a, b])).status).toBe(204)
    expect(await groupOf(a)).toBeUndefined()
    const c = await modelOf(name, 'c.stl', binaryCube(cubeSize++))
    expect(await groupOf(a)).toEqual({ reasons: ['same_name'], target: a, others: [b, c].sort() })
    expect((await callApi(suite, 'DELETE', `/api/v1/models/${c}`)).status).toBe(204)
    expect(await groupOf(a)).toBeUndefined()
    const { db } = suite.vault.deps.database
    const rows = await db.selectFrom('merge_dismissals').select('model_id').where('model_id', '=', c).execute()
    expect(rows).toEqual([])
  })

  it('merging a group through the merge endpoint removes it from the suggestions', async () => {
    const name = `Clip ${unique()}`
    const a = await modelOf(name, 'a.stl', binaryCube(cubeSize++))
    const b = await modelOf(name, 'b.stl', binaryCube(cubeSize++))
    expect((await callApi(suite, 'POST', `/api/v1/models/${a}/merge`, { model_ids: [b] })).status).toBe(200)
    expect(await groupOf(a)).toBeUndefined()
  })

  it('answers bad dismissals with 422 problems', async () => {
    const a = await modelOf(`Lone ${unique()}`, 'a.stl', binaryCube(cubeSize++))
    const unknown = crypto.randomUUID()
    for (const ids of [[a], [a, a], [a, unknown], Array.from({ length: 101 }, () => crypto.randomUUID()), 'x']) {
      const answer = await dismiss<{ code: string }>(ids)
      expect(answer.status).toBe(422)
      expect(answer.body.code).toBe('validation_failed')
    }
    expect((await callApi(suite, 'GET', '/api/v1/models/merge-suggestions?limit=0')).status).toBe(422)
  })
})
