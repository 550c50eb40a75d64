import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'
import { binaryCube } from '../../../test/support/uploads.js'

const suite = setUpInProcessSuite()

/** An upload sent with `X-Request-Id: id`, in-process. */
function sendWithId(id: string, filename: string, bytes: Uint8Array) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(bytes)]), filename)
  return suite.vault.app.request('/api/v1/ingest', {
    method: 'POST',
    headers: { Authorization: suite.authorization, 'X-Request-Id': id },
    body: form,
  })
}

const linesOf = (requestId: string) => suite.vault.logs.filter((line) => line.request_id === requestId)

describe('the log lines of an upload', () => {
  it("carry the request's id: a file's, a zip's, and the request line itself", async () => {
    expect((await sendWithId('upload-file-1', 'Logged.stl', binaryCube(411))).status).toBe(201)
    expect(linesOf('upload-file-1').map((line) => line.msg)).toEqual(['file ingested', 'request'])

    const zip = zipSync({ 'a.stl': binaryCube(412), 'b.stl': binaryCube(413) })
    expect((await sendWithId('upload-zip-1', 'Logged.zip', zip)).status).toBe(201)
    expect(linesOf('upload-zip-1').map((line) => line.msg)).toEqual([
      'file ingested',
      'file ingested',
      'archive ingested',
      'request',
    ])
  })

  it('of two uploads at once each carry their own id', async () => {
    const ids = ['upload-both-1', 'upload-both-2']
    const answers = await Promise.all([
      sendWithId(ids[0]!, 'Both-1.stl', binaryCube(414)),
      sendWithId(ids[1]!, 'Both-2.stl', binaryCube(415)),
    ])
    const fileIds = await Promise.all(
      answers.map(async (answer) => ((await answer.json()) as { file: { id: string } }).file.id),
    )
    expect(ids.map((id) => linesOf(id).find((line) => line.msg === 'file ingested')?.file_id)).toEqual(fileIds)
  })
})
