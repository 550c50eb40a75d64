import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { postUpload, putUpload, rowCount } from '../../../test/support/in-process-api.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { asciiCube, binaryCube } from '../../../test/support/uploads.js'

const suite = setUpInProcessSuite()

/** The parts of an ingest answer (or problem) these tests read. */
interface Answer {
  model_created?: boolean
  model: { id: string; name: string }
  models: { model: { name: string } }[]
  errors?: { path: string; message: string }[]
}

const post = (filename: string, bytes: Uint8Array, fields: Record<string, string> = {}) =>
  postUpload<Answer>(suite, filename, bytes, fields)
const put = (filename: string, bytes: Uint8Array, query: string) => putUpload<Answer>(suite, filename, bytes, query)
const modelCount = () => rowCount(suite, 'models')

describe('model_name: an upload that makes a model of its own, named', () => {
  it('names the new model, and the file joins no other model by its mesh', async () => {
    const first = await post('Gear.stl', binaryCube(81))
    expect(first.body.model.name).toBe('Gear')
    // The same mesh as ASCII STL joins "Gear"; named, it makes a model of its own.
    expect((await post('Gear-ascii.stl', new TextEncoder().encode(asciiCube(81)))).body.model.id).toBe(
      first.body.model.id,
    )
    const named = await post('Gear-remix.stl', new TextEncoder().encode(asciiCube(81, 1)), {
      model_name: '  Articulated Dragon  ',
    })
    expect(named.status).toBe(201)
    expect(named.body).toMatchObject({ model_created: true, model: { name: 'Articulated Dragon' } })
    expect(named.body.model.id).not.toBe(first.body.model.id)
    const raw = await put('Wing.stl', binaryCube(83), `model_name=${encodeURIComponent('Dragon Wings')}`)
    expect(raw.status).toBe(201)
    expect(raw.body.model.name).toBe('Dragon Wings')
  })

  it('names the one model a zip makes', async () => {
    const zip = zipSync({ 'dragon/body.stl': binaryCube(84), 'dragon/tail.stl': binaryCube(85) })
    const answer = await post('download.zip', zip, { model_name: 'Dragon, from Printables' })
    expect(answer.status).toBe(201)
    expect(answer.body.models.map((m) => m.model.name)).toEqual(['Dragon, from Printables'])
  })

  it('is refused with 422 beside model_id, empty, too long, or for a package of several models, storing nothing', async () => {
    const before = await modelCount()
    const target = (await post('Base.stl', binaryCube(86))).body.model.id
    const refusals = [
      await post('Lid.stl', binaryCube(87), { model_id: target, model_name: 'Lid' }),
      await post('Lid.stl', binaryCube(87), { model_name: '   ' }),
      await post('Lid.stl', binaryCube(87), { model_name: 'x'.repeat(201) }),
      await put('Lid.stl', binaryCube(87), `model_id=${target}&model_name=Lid`),
      await post(
        'package.zip',
        zipSync({
          'a/datapackage.json': new TextEncoder().encode(JSON.stringify({ title: 'A' })),
          'a/a.stl': binaryCube(88),
          'b/datapackage.json': new TextEncoder().encode(JSON.stringify({ title: 'B' })),
          'b/b.stl': binaryCube(89),
        }),
        { model_name: 'One' },
      ),
    ]
    for (const refused of refusals) {
      expect(refused.status).toBe(422)
      expect(refused.body.errors).toContainEqual(
        expect.objectContaining({ path: expect.stringMatching(/model_name$/) }),
      )
    }
    expect(await modelCount()).toBe(before + 1)
  })
})
