import { describe, expect, it } from 'vitest'
import { callApi, postUpload } from '../../../test/support/in-process-api.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'

const suite = setUpInProcessSuite()

interface Dispatch {
  id: string
  file_name: string
  model_id: string | null
  created_at: string
}
interface Stored {
  file: { id: string }
  model: { id: string }
}

const gcode = (name: string) => new TextEncoder().encode(`; ${name} ${crypto.randomUUID()}\nG28\nG1 X10 Y10\n`)
const modelIdsOf = (items: Dispatch[]) => items.map((item) => item.model_id)

async function sendTo(printerId: string, fileId: string): Promise<Dispatch> {
  const sent = await callApi<Dispatch>(suite, 'POST', `/api/v1/printers/${printerId}/send`, { file_id: fileId })
  expect(sent.status).toBe(201)
  return sent.body
}

describe("a model's print history", () => {
  it("lists the sends of the files a model holds now, newest first, and each send names its file's model", async () => {
    const printer = await callApi<{ id: string }>(suite, 'POST', '/api/v1/printers', {
      name: 'History bench',
      provider: 'virtual',
      address: 'virtual://history?heat_seconds=0&print_seconds=60',
    })
    expect(printer.status).toBe(201)
    const box = await postUpload<Stored>(suite, 'box.gcode', gcode('box'), { model_name: 'History Box' })
    const lid = await postUpload<Stored>(suite, 'lid.gcode', gcode('lid'), { model_id: box.body.model.id })
    const other = await postUpload<Stored>(suite, 'clip.gcode', gcode('clip'), { model_name: 'History Clip' })
    const boxModel = box.body.model.id
    const clipModel = other.body.model.id

    const first = await sendTo(printer.body.id, box.body.file.id)
    expect(first.model_id).toBe(boxModel)
    await sendTo(printer.body.id, lid.body.file.id)
    await sendTo(printer.body.id, other.body.file.id)
    await sendTo(printer.body.id, box.body.file.id)

    const history = async (modelId: string) =>
      callApi<{ items: Dispatch[] }>(suite, 'GET', `/api/v1/dispatches?model_id=${modelId}`)
    const boxHistory = await history(boxModel)
    expect(boxHistory.status).toBe(200)
    expect(boxHistory.body.items.map((item) => item.file_name).sort()).toEqual(['box.gcode', 'box.gcode', 'lid.gcode'])
    const times = boxHistory.body.items.map((item) => item.created_at)
    expect(times).toEqual([...times].sort().reverse())
    expect(modelIdsOf(boxHistory.body.items)).toEqual([boxModel, boxModel, boxModel])
    // A send shows the fields its schema documents; its print run is shown by the print-runs routes.
    expect(Object.keys(boxHistory.body.items[0] ?? {}).sort()).toEqual(
      [
        'id',
        'printer_id',
        'printer_name',
        'file_id',
        'file_name',
        'user_id',
        'start_requested',
        'outcome',
        'uploaded',
        'started',
        'confirmed',
        'remote_name',
        'detail',
        'steps',
        'created_at',
        'finished_at',
        'model_id',
      ].sort(),
    )
    expect((await history(clipModel)).body.items.map((item) => item.file_name)).toEqual(['clip.gcode'])
    const printerHistory = await callApi<{ items: Dispatch[] }>(
      suite,
      'GET',
      `/api/v1/printers/${printer.body.id}/dispatches`,
    )
    expect(modelIdsOf(printerHistory.body.items).sort()).toEqual([boxModel, boxModel, boxModel, clipModel].sort())

    // A file moved to another model takes its sends along.
    const moved = await callApi(suite, 'POST', `/api/v1/models/${clipModel}/files`, {
      file_ids: [lid.body.file.id],
      mode: 'move',
    })
    expect(moved.status).toBe(200)
    expect((await history(boxModel)).body.items.map((item) => item.file_name)).toEqual(['box.gcode', 'box.gcode'])
    expect((await history(clipModel)).body.items.map((item) => item.file_name).sort()).toEqual([
      'clip.gcode',
      'lid.gcode',
    ])

    // A deleted model's sends stay on the printer's history, naming no model.
    expect((await callApi(suite, 'DELETE', `/api/v1/models/${clipModel}`)).status).toBe(204)
    const after = await callApi<{ items: Dispatch[] }>(suite, 'GET', `/api/v1/printers/${printer.body.id}/dispatches`)
    expect(after.body.items.map((item) => [item.file_name, item.model_id]).sort()).toEqual([
      ['box.gcode', boxModel],
      ['box.gcode', boxModel],
      ['clip.gcode', null],
      ['lid.gcode', null],
    ])
    expect((await history(clipModel)).status).toBe(404)
  })

  it('refuses a bad model id with 422', async () => {
    const refused = await callApi<{ code: string }>(suite, 'GET', '/api/v1/dispatches?model_id=%07bad')
    expect(refused.status).toBe(422)
    expect(refused.body.code).toBe('validation_failed')
  })
})
