import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { postUpload, putUpload, rowCount } from '../../../test/support/in-process-api.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'

const suite = setUpInProcessSuite()

interface Answer {
  file: { id: string; name: string; folder: string; model_id: string }
  model: { id: string }
  entries: { path: string; file: { folder: string } | null }[]
  errors?: { path: string; message: string }[]
}

const post = (filename: string, bytes: Uint8Array, fields: Record<string, string> = {}) =>
  postUpload<Answer>(suite, filename, bytes, fields)
const put = (filename: string, bytes: Uint8Array, query: string) => putUpload<Answer>(suite, filename, bytes, query)
const fileCount = () => rowCount(suite, 'files')

describe('folder: where a file sits inside its model', () => {
  it('is kept as sent by a form field or a query parameter, in one form, and shown on the model', async () => {
    const base = await post('Body.stl', binaryCube(301), { model_name: 'Dragon', folder: 'stls\\unsupported\\' })
    expect(base.status).toBe(201)
    expect(base.body.file.folder).toBe('stls/unsupported')
    const supported = await put('Body.stl', binaryCube(302), `model_id=${base.body.model.id}&folder=stls/supported`)
    expect(supported.status).toBe(201)
    expect(supported.body.file.folder).toBe('stls/supported')
    const top = await post('README.md', new TextEncoder().encode('# Dragon'), { model_id: base.body.model.id })
    expect(top.body.file.folder).toBe('')

    const detail = await suite.vault.app.request(`/api/v1/models/${base.body.model.id}`, {
      headers: { Authorization: suite.authorization },
    })
    const files = ((await detail.json()) as { files: { name: string; folder: string }[] }).files
    // Two files of one name sit side by side in their own folders.
    expect(files.map((file) => `${file.folder}/${file.name}`).sort()).toEqual([
      '/README.md',
      'stls/supported/Body.stl',
      'stls/unsupported/Body.stl',
    ])
  })

  it("puts a zip's entries below it, each in its own folder", async () => {
    const answer = await post(
      'parts.zip',
      zipSync({ 'nested/tail.stl': binaryCube(303), 'head.stl': binaryCube(304) }),
      {
        folder: 'remix',
      },
    )
    expect(answer.status).toBe(201)
    const folders = Object.fromEntries(answer.body.entries.map((entry) => [entry.path, entry.file?.folder]))
    expect(folders).toEqual({ 'nested/tail.stl': 'remix/nested', 'head.stl': 'remix' })
  })

  it('is refused with 422 when it climbs out of the model or holds control characters, storing nothing', async () => {
    const before = await fileCount()
    const refusals = [
      await post('Evil.stl', binaryCube(305), { folder: '../outside' }),
      await post('Evil.stl', binaryCube(305), { folder: 'a/\u0007/b' }),
      await post('Evil.zip', zipSync({ 'x.stl': binaryCube(306) }), { folder: 'a/../../b' }),
      await put('Evil.stl', binaryCube(305), `folder=${encodeURIComponent('stls/../..')}`),
      await put('Evil.stl', binaryCube(305), `folder=${'d/'.repeat(40)}`),
    ]
    for (const refused of refusals) {
      expect(refused.status).toBe(422)
      expect(refused.body.errors).toContainEqual(expect.objectContaining({ path: expect.stringMatching(/folder$/) }))
    }
    expect(await fileCount()).toBe(before)
  })
})
