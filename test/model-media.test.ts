import { createHash, randomBytes } from 'node:crypto'
import { decode as decodePng, encode as encodePng } from 'fast-png'
import { unzipSync, zipSync } from 'fflate'
import { decode as decodeJpeg, encode as encodeJpeg } from 'jpeg-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  authHeaders,
  call,
  createApiKeyAs,
  expectProblem,
  newAccount,
  signIn,
} from './support/accounts.js'
import { gridThreeMf } from './support/hostile-files.js'
import { pngOf, zlibZeros } from './support/png-chunks.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault.close())

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')
/** Pixels no other test image has (so no upload is answered as another test's duplicate), and incompressible. */
const noise = (length: number) => new Uint8Array(randomBytes(length))
const smallPng = (side = 16) =>
  encodePng({ width: side, height: side, data: noise(side * side * 3), channels: 3, depth: 8 })

let meshes = 0
/** A model holding one mesh (so it has a rendered thumbnail), its id. */
async function meshModel(): Promise<{ id: string; meshThumbnail: string }> {
  const res = await upload(vault.baseUrl, token, 'part.stl', binaryCube(10 + ++meshes * 0.37))
  expect(res.status).toBe(201)
  return { id: res.body.model.id, meshThumbnail: (await analysedFile(res.body.file.id)).thumbnail_url }
}
/** The file as the API shows it once the background analysis has rendered what was queued. */
async function analysedFile(id: string) {
  await vault.deps.analysis.idle()
  return (await call(vault.baseUrl, 'GET', `/api/v1/files/${id}`, { token })).body
}
const rowsHolding = (bytes: Uint8Array) =>
  vault.deps.database.db.selectFrom('files').select('id').where('sha256', '=', sha256(bytes)).execute()
const getModel = async (id: string) => (await call(vault.baseUrl, 'GET', `/api/v1/models/${id}`, { token })).body
const bytesOf = async (path: string) => {
  const res = await fetch(`${vault.baseUrl}${path}`, { headers: authHeaders(token) })
  expect(res.status).toBe(200)
  return { type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers }
}
const chooseCover = (modelId: string, json: unknown, as = token) =>
  call(vault.baseUrl, 'PUT', `/api/v1/models/${modelId}/cover`, { token: as, json })

describe('the role of a file follows from its name', () => {
  it.each([
    ['photo.PNG', 'image', 'image/png'],
    ['shot.jpeg', 'image', 'image/jpeg'],
    ['README', 'document', 'text/plain; charset=utf-8'],
    ['LICENSE.rst', 'document', 'text/plain; charset=utf-8'],
    ['readme.html', 'document', 'text/plain; charset=utf-8'],
    ['notes.md', 'document', 'text/markdown; charset=utf-8'],
    ['manual.pdf', 'document', 'application/pdf'],
    ['page.html', 'part', 'application/octet-stream'],
    ['logo.svg', 'part', 'application/octet-stream'],
  ])('%s is a %s served as %s', async (name, role, contentType) => {
    const { id } = await meshModel()
    const bytes =
      role === 'image' && name.endsWith('PNG') ? smallPng() : `<html><script>alert(1)</script>${name}</html>`
    const res = await upload(vault.baseUrl, token, name, role === 'image' ? smallPng() : bytes, { model_id: id })
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body.file).toMatchObject({ name, role, content_type: contentType, model_id: id })
    const download = await bytesOf(res.body.file.download_url)
    expect(download.type).toBe(contentType)
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; /)
    expect(download.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('lists images and documents among the files of the model detail, with the cover', async () => {
    const { id } = await meshModel()
    const image = await upload(vault.baseUrl, token, 'photo.png', smallPng(), { model_id: id })
    await upload(vault.baseUrl, token, 'README.md', `# Read me ${id}`, { model_id: id })
    const model = await getModel(id)
    expect(model.files.map((file: { role: string }) => file.role)).toEqual(['part', 'image', 'document'])
    expect(model.cover_file_id).toBe(image.body.file.id)
    expect(model.file_summary.formats).toEqual(['document', 'image', 'stl'])
  })
})

describe('images and documents are unique per model only', () => {
  it('stores the same image on two models as two rows sharing one blob, and a repeat on one model as a duplicate', async () => {
    const [first, second] = [await meshModel(), await meshModel()]
    const logo = smallPng()
    const a = await upload(vault.baseUrl, token, 'logo.png', logo, { model_id: first.id })
    const b = await upload(vault.baseUrl, token, 'logo.png', logo, { model_id: second.id })
    expect([a.status, b.status]).toEqual([201, 201])
    expect(b.body.file.id).not.toBe(a.body.file.id)
    expect(b.body.file.model_id).toBe(second.id)
    const again = await upload(vault.baseUrl, token, 'logo-again.png', logo, { model_id: second.id })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ duplicate: true, file: { id: b.body.file.id } })

    expect(await rowsHolding(logo)).toHaveLength(2)
    expect(await call(vault.baseUrl, 'DELETE', `/api/v1/models/${first.id}`, { token })).toMatchObject({ status: 204 })
    expect(await vault.deps.blobs.stat(sha256(logo))).not.toBeNull()
    expect((await bytesOf(b.body.file.download_url)).bytes).toEqual(logo)
  })

  it('makes a part another model holds a file of the model it is sent to, sharing the stored bytes', async () => {
    const cube = binaryCube(77.7)
    const first = await upload(vault.baseUrl, token, 'shared.stl', cube)
    const { id } = await meshModel()
    const second = await upload(vault.baseUrl, token, 'shared.stl', cube, { model_id: id })
    expect(second.status).toBe(201)
    expect(second.body).toMatchObject({ duplicate: false, file: { model_id: id, sha256: first.body.file.sha256 } })
    expect(second.body.file.id).not.toBe(first.body.file.id)
    // Read once: the copy has the original's figures.
    expect(second.body.file.metadata).toEqual(first.body.file.metadata)
    expect(await rowsHolding(cube)).toHaveLength(2)
    const again = await upload(vault.baseUrl, token, 'shared.stl', cube, { model_id: id })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ duplicate: true, file: { id: second.body.file.id } })
    // Without a model the copy first stored answers.
    const loose = await upload(vault.baseUrl, token, 'shared.stl', cube)
    expect(loose.body).toMatchObject({ duplicate: true, file: { id: first.body.file.id } })
  })

  it('answers an image uploaded without a model as a duplicate of the one already stored', async () => {
    const photo = smallPng()
    const first = await upload(vault.baseUrl, token, 'Lonely Photo.png', photo)
    expect(first.status).toBe(201)
    expect(first.body).toMatchObject({ model_created: true, model: { name: 'Lonely Photo', has_thumbnail: true } })
    const second = await upload(vault.baseUrl, token, 'Lonely Photo.png', photo)
    expect(second.body).toMatchObject({ duplicate: true, file: { id: first.body.file.id } })
  })

  it('stores one file and one model for concurrent uploads of one image without a model', async () => {
    const photo = smallPng()
    const replies = await Promise.all(Array.from({ length: 8 }, () => upload(vault.baseUrl, token, 'burst.png', photo)))
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201])
    expect(new Set(replies.map((reply) => reply.body.file.id)).size).toBe(1)
    expect(await rowsHolding(photo)).toHaveLength(1)
  })
})

describe("a 3MF project's attachments", () => {
  it('become images and documents of its model: pictures and guides under Auxiliaries/, the first picture the cover', async () => {
    const photo = smallPng()
    const guide = new TextEncoder().encode(`%PDF-1.4 assembly guide ${crypto.randomUUID()}`)
    const project = zipSync({
      ...unzipSync(gridThreeMf(3)),
      'Auxiliaries/Model Pictures/front.png': photo,
      'Auxiliaries/Assembly Guide/guide.pdf': guide,
      // Neither a picture nor a document: a project's other files stay inside it.
      'Auxiliaries/Other Files/spare.stl': binaryCube(4.2),
      'Metadata/plate_1.png': smallPng(),
    })
    const res = await upload(vault.baseUrl, token, 'Bambu project.3mf', project)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    const detail = (await call(vault.baseUrl, 'GET', `/api/v1/models/${res.body.model.id}`, { token })).body
    const files = detail.files.map((file: { name: string; role: string; sha256: string }) => [
      file.role,
      file.name,
      file.sha256,
    ])
    expect(files).toEqual([
      ['part', 'Bambu project.3mf', sha256(project)],
      ['image', 'front.png', sha256(photo)],
      ['document', 'guide.pdf', sha256(guide)],
    ])
    expect(detail.cover_file_id).toBe(detail.files[1].id)
    expect(vault.logs).toContainEqual(expect.objectContaining({ msg: 'file ingested', attachments: 2 }))

    // The same project again is a duplicate, and adds nothing.
    const again = await upload(vault.baseUrl, token, 'Bambu project.3mf', project)
    expect(again.status).toBe(200)
    const after = (await call(vault.baseUrl, 'GET', `/api/v1/models/${res.body.model.id}`, { token })).body
    expect(after.files).toHaveLength(3)
  })
})

describe('the cover', () => {
  it("is the first image a model gets, and the model's thumbnail is the cover's", async () => {
    const { id, meshThumbnail } = await meshModel()
    const meshPicture = (await bytesOf(meshThumbnail)).bytes
    expect((await bytesOf(`/api/v1/models/${id}/thumbnail`)).bytes).toEqual(meshPicture)
    expect((await getModel(id)).cover_file_id).toBeNull()

    const [first, second] = [smallPng(), smallPng()]
    const a = await upload(vault.baseUrl, token, 'first.png', first, { model_id: id })
    await upload(vault.baseUrl, token, 'second.png', second, { model_id: id })
    expect((await getModel(id)).cover_file_id).toBe(a.body.file.id)
    expect(await bytesOf(`/api/v1/models/${id}/thumbnail`)).toMatchObject({ type: 'image/png', bytes: first })
  })

  it('can be chosen among the images of the model', async () => {
    const { id } = await meshModel()
    await upload(vault.baseUrl, token, 'first.png', smallPng(), { model_id: id })
    const secondBytes = smallPng()
    const second = await upload(vault.baseUrl, token, 'second.png', secondBytes, { model_id: id })
    const before = await getModel(id)
    const user = await newAccount(vault.baseUrl, token)
    const res = await chooseCover(id, { file_id: second.body.file.id }, user.token)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.cover_file_id).toBe(second.body.file.id)
    expect(res.body.updated_at > before.updated_at).toBe(true)
    expect((await bytesOf(`/api/v1/models/${id}/thumbnail`)).bytes).toEqual(secondBytes)
    // A later image does not take the chosen cover's place.
    await upload(vault.baseUrl, token, 'third.png', smallPng(), { model_id: id })
    expect((await getModel(id)).cover_file_id).toBe(second.body.file.id)
  })

  it('refuses what is not an image of the model', async () => {
    const { id } = await meshModel()
    const other = await meshModel()
    const part = (await getModel(id)).files[0].id
    const document = await upload(vault.baseUrl, token, 'LICENSE', `MIT ${id}`, { model_id: id })
    const elsewhere = await upload(vault.baseUrl, token, 'elsewhere.png', smallPng(), { model_id: other.id })
    for (const fileId of [part, document.body.file.id, elsewhere.body.file.id, 'no-such-file']) {
      const body = expectProblem(await chooseCover(id, { file_id: fileId }), 422, 'validation_failed')
      expect(body.errors).toEqual([{ path: 'body.file_id', message: 'not an image of this model' }])
    }
    for (const json of [{}, { file_id: '' }, { file_id: 'a\u0000b' }, { file_id: 7 }, { file_id: part, extra: 1 }, []])
      expectProblem(await chooseCover(id, json), 422, 'validation_failed')
    expectProblem(await chooseCover('no-such-model', { file_id: elsewhere.body.file.id }), 404, 'not_found')
    expect((await getModel(id)).cover_file_id).toBeNull()
  })

  it('needs the manage scope and a signed-in user', async () => {
    const { id } = await meshModel()
    const image = await upload(vault.baseUrl, token, 'scoped.png', smallPng(), { model_id: id })
    const json = { file_id: image.body.file.id }
    const readOnly = await createApiKeyAs(vault.baseUrl, token, undefined, ['read', 'upload'])
    const refused = await call(vault.baseUrl, 'PUT', `/api/v1/models/${id}/cover`, {
      json,
      headers: { 'X-Api-Key': readOnly.key },
    })
    expectProblem(refused, 403, 'insufficient_scope')
    expect((await call(vault.baseUrl, 'PUT', `/api/v1/models/${id}/cover`, { json })).status).toBe(401)
    const manager = await createApiKeyAs(vault.baseUrl, token, undefined, ['manage'])
    const allowed = await call(vault.baseUrl, 'PUT', `/api/v1/models/${id}/cover`, {
      json,
      headers: { 'X-Api-Key': manager.key },
    })
    expect(allowed.status).toBe(200)
  })

  it('goes when its model goes, and an image on another model keeps being that model’s cover', async () => {
    const [first, second] = [await meshModel(), await meshModel()]
    const photo = smallPng()
    await upload(vault.baseUrl, token, 'shared.png', photo, { model_id: first.id })
    const kept = await upload(vault.baseUrl, token, 'shared.png', photo, { model_id: second.id })
    await call(vault.baseUrl, 'DELETE', `/api/v1/models/${first.id}`, { token })
    expect((await getModel(second.id)).cover_file_id).toBe(kept.body.file.id)
    expect((await bytesOf(`/api/v1/models/${second.id}/thumbnail`)).bytes).toEqual(photo)
  })
})

describe('image thumbnails', () => {
  it('scale a large PNG down to 512 pixels', async () => {
    const png = encodePng({ width: 1200, height: 900, data: noise(1200 * 900 * 3), channels: 3, depth: 8 })
    expect(png.length).toBeGreaterThan(512 * 1024)
    const res = await upload(vault.baseUrl, token, 'big.png', png)
    // Scaling is left to the analysis queue: the answer has the size, not yet the thumbnail.
    expect(res.body.file).toMatchObject({ has_thumbnail: false, metadata: { image: { width: 1200 } } })
    expect(res.body.model.analysing_files).toBe(1)
    const file = await analysedFile(res.body.file.id)
    expect(file).toMatchObject({
      has_thumbnail: true,
      parse_warnings: [],
      metadata: { image: { type: 'png', width: 1200, height: 900 } },
    })
    const thumbnail = await bytesOf(file.thumbnail_url)
    expect(thumbnail.type).toBe('image/png')
    expect(decodePng(thumbnail.bytes)).toMatchObject({ width: 512, height: 384 })
  })

  it('scale a large JPEG down to 512 pixels', async () => {
    const jpeg = new Uint8Array(encodeJpeg({ width: 1200, height: 900, data: noise(1200 * 900 * 4) }, 90).data)
    expect(jpeg.length).toBeGreaterThan(512 * 1024)
    const res = await upload(vault.baseUrl, token, 'big.jpg', jpeg)
    const file = await analysedFile(res.body.file.id)
    expect(file).toMatchObject({ has_thumbnail: true, metadata: { image: { width: 1200, height: 900 } } })
    const thumbnail = await bytesOf(file.thumbnail_url)
    expect(thumbnail.type).toBe('image/jpeg')
    expect(decodeJpeg(thumbnail.bytes, { useTArray: true })).toMatchObject({ width: 512, height: 384 })
  })

  it('are not made for a PNG claiming 100000×100000 pixels, which is stored all the same', async () => {
    const hostile = pngOf(100_000, 100_000, zlibZeros(1))
    const res = await upload(vault.baseUrl, token, 'huge.png', hostile)
    expect(res.status).toBe(201)
    expect(res.body.file).toMatchObject({
      role: 'image',
      has_thumbnail: false,
      metadata: { image: { width: 100_000, height: 100_000 } },
    })
    expect(res.body.file.parse_warnings[0]).toMatch(/^No thumbnail: the image has 100000×100000 pixels/)
  })

  it('are not made for a PNG whose image data inflates past what its size allows', async () => {
    const bomb = pngOf(1000, 1000, zlibZeros(8), 600 * 1024)
    const res = await upload(vault.baseUrl, token, 'bomb.png', bomb)
    expect(res.status).toBe(201)
    // The scaling fails in the background: the queue keeps the reason, the file stays as stored.
    const file = await analysedFile(res.body.file.id)
    expect(file).toMatchObject({ has_thumbnail: false, parse_warnings: [] })
    const queue = await call(vault.baseUrl, 'GET', '/api/v1/analysis', { token })
    const failure = queue.body.failures.find((entry: { sha256: string }) => entry.sha256 === sha256(bomb))
    expect(failure.reason).toMatch(/inflates to more than/)
    expect(failure.files).toEqual([{ id: file.id, name: 'bomb.png', model_id: file.model_id }])
    expect((await getModel(file.model_id)).analysing_files).toBe(0)
  })

  it('store a file named as an image that is none as an opaque file', async () => {
    const res = await upload(vault.baseUrl, token, 'fake.jpg', '<svg onload="alert(1)"/>')
    expect(res.status).toBe(201)
    expect(res.body.file).toMatchObject({ role: 'image', has_thumbnail: false, metadata: {} })
    expect(res.body.file.parse_warnings[0]).toMatch(/^Stored as an opaque file/)
    expect((await bytesOf(res.body.file.download_url)).type).toBe('image/jpeg')
  })
})
