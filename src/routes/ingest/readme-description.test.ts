import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { callApi, postUpload, putUpload } from '../../../test/support/in-process-api.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'

const suite = setUpInProcessSuite()

interface Answer {
  file: { id: string; folder: string }
  model: { id: string; description: string }
  models: { model: { id: string; description: string } }[]
}

const encode = (text: string) => new TextEncoder().encode(text)
let cubes = 0
const newModel = async (name: string) =>
  (await postUpload<Answer>(suite, 'part.stl', binaryCube(700 + cubes++), { model_name: name })).body.model.id
const descriptionOf = async (id: string) =>
  (await callApi<{ description: string }>(suite, 'GET', `/api/v1/models/${id}`)).body.description

describe('a README at the top of a model becomes its description when it has none', () => {
  it('from a single upload: only at the top folder, invalid bytes replaced, cut at 10,000 characters', async () => {
    const id = await newModel('Dragon')
    const nested = await putUpload<Answer>(
      suite,
      'README.md',
      encode('# the parts folder'),
      `model_id=${id}&folder=stls`,
    )
    expect(nested.status).toBe(201)
    expect(await descriptionOf(id)).toBe('')
    const broken = Uint8Array.from([...encode('# Dragon\n\nPrint at 0.2 mm '), 0xff, 0xfe, ...encode(' layers.\n')])
    const top = await putUpload<Answer>(suite, 'README.md', broken, `model_id=${id}`)
    expect(top.status).toBe(201)
    expect(top.body.model.description).toBe('# Dragon\n\nPrint at 0.2 mm \uFFFD\uFFFD layers.')
    // The search finds the model by its description.
    const found = await callApi<{ items: { id: string }[] }>(suite, 'GET', '/api/v1/models?q=layers')
    expect(found.body.items.map((model) => model.id)).toContain(id)

    const long = await newModel('Long read')
    await postUpload<Answer>(suite, 'readme.txt', encode(`${'é'.repeat(12_000)}`), { model_id: long })
    expect(await descriptionOf(long)).toBe('é'.repeat(10_000))
  })

  it('never replaces a description someone set, nor one an earlier README gave', async () => {
    const id = await newModel('Described')
    expect((await callApi(suite, 'PATCH', `/api/v1/models/${id}`, { description: 'Set by hand.' })).status).toBe(200)
    await putUpload<Answer>(suite, 'README.md', encode('# From the README'), `model_id=${id}`)
    expect(await descriptionOf(id)).toBe('Set by hand.')

    const read = await newModel('Read once')
    await putUpload<Answer>(suite, 'README.md', encode('the first README'), `model_id=${read}`)
    await putUpload<Answer>(suite, 'README.txt', encode('a second README'), `model_id=${read}`)
    expect(await descriptionOf(read)).toBe('the first README')
  })

  it('of two READMEs sent at once, exactly one describes the model, whole', async () => {
    const texts = Array.from({ length: 6 }, (_, index) => `README number ${index}\n${'text '.repeat(200)}`)
    const id = await newModel('Raced')
    const answers = await Promise.all(
      texts.map((text, index) =>
        putUpload<Answer>(
          suite,
          ['README.md', 'readme.txt', 'README', 'Readme.markdown'][index % 4] ?? '',
          encode(text),
          `model_id=${id}`,
        ),
      ),
    )
    expect(answers.map((answer) => answer.status)).toEqual(texts.map(() => 201))
    const description = await descriptionOf(id)
    expect(texts.map((text) => text.trim())).toContain(description)
  })

  it("from a zip, into the model it makes or the model_id given; a package's own description comes first", async () => {
    const made = await postUpload<Answer>(
      suite,
      'dragon.zip',
      zipSync({ 'Dragon/README.md': encode('# Zipped dragon'), 'Dragon/body.stl': binaryCube(790) }),
    )
    expect(made.status).toBe(201)
    expect(made.body.models[0]?.model.description).toBe('# Zipped dragon')

    const id = await newModel('Given')
    const into = await putUpload<Answer>(
      suite,
      'more.zip',
      zipSync({ 'README.txt': encode('from the zip'), 'tail.stl': binaryCube(791) }),
      `model_id=${id}`,
    )
    expect(into.status).toBe(201)
    expect(await descriptionOf(id)).toBe('from the zip')

    const packaged = await postUpload<Answer>(
      suite,
      'packaged.zip',
      zipSync({
        'datapackage.json': encode(
          JSON.stringify({ name: 'packaged', title: 'Packaged', description: 'The package says.' }),
        ),
        'README.md': encode('The README says.'),
        'body.stl': binaryCube(792),
      }),
    )
    expect(packaged.status).toBe(201)
    expect(packaged.body.models[0]?.model.description).toBe('The package says.')
  })
})
