import { createHash, randomBytes } from 'node:crypto'
import { appendFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../src/core/formats/byte-source.js'
import { openZip } from '../src/core/formats/zip-reader.js'
import { admin, adminEnv, authHeaders, call, createApiKeyAs, expectProblem, signIn } from './support/accounts.js'
import { gcodeText } from './support/library.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

const MiB = 1024 * 1024

let vault: TestVault
let token: string
let benchy: string
let vase: string
let empty: string

/** A package download, read whole. */
async function download(path: string, init: { method?: string; json?: unknown; token?: string } = {}) {
  const res = await fetch(`${vault.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...authHeaders(init.token ?? token),
      ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  })
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) }
}

/** Every entry of a zip by name, read with the vault's own zip reader (the one zip upload uses). */
async function unzip(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const archive = await openZip(byteSourceFromBytes(bytes), {
    maxEntries: 10_000,
    maxEntryBytes: 512 * MiB,
    maxCompressionRatio: 200,
  })
  const entries = new Map<string, Uint8Array>()
  for (const entry of archive.entries) entries.set(entry.name, await archive.readEntry(entry))
  return entries
}

/** A package answer: a zip, not cached, exactly as long as it said. */
function expectZipAnswer(res: Response, bytes: Uint8Array) {
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toBe('application/zip')
  expect(res.headers.get('cache-control')).toBe('no-store')
  expect(Number(res.headers.get('content-length'))).toBe(bytes.byteLength)
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes)
const json = (bytes: Uint8Array | undefined) => JSON.parse(text(bytes))

async function uploadTo(modelId: string | undefined, name: string, bytes: Uint8Array | string) {
  const reply = await upload(vault.baseUrl, token, name, bytes, modelId ? { model_id: modelId } : {})
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body.model.id as string
}

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
  benchy = await uploadTo(undefined, 'Benchy.stl', binaryCube(10))
  await uploadTo(benchy, 'benchy.gcode', gcodeText({ slicer: 'PrusaSlicer', printer: 'MK4', filamentType: 'PLA' }))
  // Equal to Benchy.stl but for case, and a part named like the package's own entries.
  await uploadTo(benchy, 'BENCHY.STL', binaryCube(12))
  await uploadTo(benchy, 'datapackage.json', '{"not": "the package"}')
  await uploadTo(benchy, 'images', 'a part without extension')
  await call(vault.baseUrl, 'PATCH', `/api/v1/models/${benchy}`, {
    token,
    json: { name: '3D Benchy', description: 'The calibration boat.', tags: ['calibration', 'boat'] },
  })
  const collection = await call(vault.baseUrl, 'POST', '/api/v1/collections', { token, json: { name: 'Calibration' } })
  await call(vault.baseUrl, 'PUT', `/api/v1/collections/${collection.body.id}/models/${benchy}`, { token })

  vase = await uploadTo(undefined, 'Schöne Vase 花瓶.stl', binaryCube(14))
  await call(vault.baseUrl, 'PATCH', `/api/v1/models/${vase}`, { token, json: { name: 'Schöne Vase 花瓶' } })

  // No route makes a model without files, but one can exist (a zip whose every entry was skipped).
  empty = crypto.randomUUID()
  const now = new Date().toISOString()
  await vault.deps.database.db
    .insertInto('models')
    .values({
      id: empty,
      name: '花瓶',
      thumbnail_sha256: null,
      thumbnail_content_type: null,
      created_by: null,
      created_at: now,
      updated_at: now,
    })
    .execute()
})
afterAll(async () => vault?.close())

describe('a model package', () => {
  it('is a zip of its parts under their names and a datapackage.json with its fields, tags, collections and hashes', async () => {
    const { res, bytes } = await download(`/api/v1/models/${benchy}/package`)
    expectZipAnswer(res, bytes)
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="3d-benchy.zip"; filename*=UTF-8''3d-benchy.zip`,
    )
    const entries = await unzip(bytes)
    expect([...entries.keys()]).toEqual([
      'datapackage.json',
      'Benchy.stl',
      'benchy.gcode',
      'BENCHY (2).STL',
      'datapackage (2).json',
      'images (2)',
    ])
    const detail = (await call(vault.baseUrl, 'GET', `/api/v1/models/${benchy}`, { token })).body
    const datapackage = json(entries.get('datapackage.json'))
    expect(datapackage).toEqual({
      profile: 'data-package',
      name: '3d-benchy',
      title: '3D Benchy',
      description: 'The calibration boat.',
      keywords: ['boat', 'calibration'],
      created: detail.created_at,
      resources: expect.any(Array),
      model_vault: { version: 1, model_id: benchy, collections: ['Calibration'], exported_at: expect.any(String) },
    })
    expect(Date.parse(datapackage.model_vault.exported_at)).not.toBeNaN()
    expect(datapackage.resources.map((resource: { name: string }) => resource.name)).toEqual([
      'benchy-stl',
      'benchy-gcode',
      'benchy-stl-2',
      'datapackage-json',
      'images',
    ])
    for (const [index, resource] of datapackage.resources.entries()) {
      const file = detail.files[index]
      const content = entries.get(resource.path)!
      expect(resource).toEqual({
        name: expect.stringMatching(/^[a-z0-9_-]+$/),
        path: expect.any(String),
        format: file.format,
        mediatype: file.content_type,
        bytes: file.size,
        hash: `sha256:${file.sha256}`,
        model_vault: { role: file.role, original_name: file.name, folder: '', metadata: file.metadata },
      })
      expect(content.byteLength).toBe(file.size)
      expect(`sha256:${createHash('sha256').update(content).digest('hex')}`).toBe(resource.hash)
    }
    expect(datapackage.resources[1].model_vault.metadata.gcode.slicer.name).toBe('PrusaSlicer')
  })

  it('puts pictures under images/ and documents under documents/, marking the cover', async () => {
    const model = await uploadTo(undefined, 'Gallery part.stl', binaryCube(23))
    await uploadTo(model, 'front.png', `front ${crypto.randomUUID()}`)
    await uploadTo(model, 'back.png', `back ${crypto.randomUUID()}`)
    await uploadTo(model, 'LICENSE', 'CC BY 4.0')
    const detail = (await call(vault.baseUrl, 'GET', `/api/v1/models/${model}`, { token })).body
    const back = detail.files.find((file: { name: string }) => file.name === 'back.png')
    expect(
      (await call(vault.baseUrl, 'PUT', `/api/v1/models/${model}/cover`, { token, json: { file_id: back.id } })).status,
    ).toBe(200)

    const entries = await unzip((await download(`/api/v1/models/${model}/package`)).bytes)
    expect([...entries.keys()]).toEqual([
      'datapackage.json',
      'Gallery part.stl',
      'images/front.png',
      'images/back.png',
      'documents/LICENSE',
    ])
    const resources = json(entries.get('datapackage.json')).resources
    expect(
      resources.map((resource: { path: string; model_vault: object }) => [resource.path, resource.model_vault]),
    ).toEqual([
      ['Gallery part.stl', expect.objectContaining({ role: 'part' })],
      ['images/front.png', expect.not.objectContaining({ cover: expect.anything() })],
      ['images/back.png', expect.objectContaining({ role: 'image', cover: true })],
      ['documents/LICENSE', expect.objectContaining({ role: 'document' })],
    ])
  })

  it("keeps each file's folder and the model's maker, source and license, and reads them back when uploaded again", async () => {
    const model = await uploadTo(undefined, 'Body.stl', binaryCube(24))
    const supported = await upload(vault.baseUrl, token, 'Body.stl', binaryCube(25), {
      model_id: model,
      folder: 'stls/supported',
    })
    expect(supported.status).toBe(201)
    await uploadTo(model, 'top.png', `top ${crypto.randomUUID()}`)
    await call(vault.baseUrl, 'PATCH', `/api/v1/models/${model}`, {
      token,
      json: { creator: 'Ebby', source_url: 'https://www.printables.com/model/1', license: 'CC-BY-4.0' },
    })
    const bytes = (await download(`/api/v1/models/${model}/package`)).bytes
    const entries = await unzip(bytes)
    expect([...entries.keys()]).toEqual(['datapackage.json', 'Body.stl', 'stls/supported/Body.stl', 'images/top.png'])
    const descriptor = json(entries.get('datapackage.json'))
    expect(descriptor).toMatchObject({
      contributors: [{ title: 'Ebby', role: 'author' }],
      sources: [{ path: 'https://www.printables.com/model/1' }],
      licenses: [{ name: 'CC-BY-4.0' }],
    })

    // Deleted and uploaded again: the same folders, the top picture back at the top, the same fields.
    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${model}`, { token })).status).toBe(204)
    const back = await upload(vault.baseUrl, token, 'package.zip', bytes)
    expect(back.status, JSON.stringify(back.body)).toBe(201)
    const again = (await call(vault.baseUrl, 'GET', `/api/v1/models/${back.body.models[0].model.id}`, { token })).body
    expect(again).toMatchObject({
      creator: 'Ebby',
      source_url: 'https://www.printables.com/model/1',
      license: 'CC-BY-4.0',
    })
    expect(again.files.map((file: { folder: string; name: string }) => `${file.folder}|${file.name}`).sort()).toEqual([
      'stls/supported|Body.stl',
      '|Body.stl',
      '|top.png',
    ])
  })

  it('keeps non-ASCII names in the zip and names the download after the slug without accents', async () => {
    const { res, bytes } = await download(`/api/v1/models/${vase}/package`)
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="schone-vase.zip"; filename*=UTF-8''schone-vase.zip`,
    )
    const entries = await unzip(bytes)
    expect([...entries.keys()]).toEqual(['datapackage.json', 'Schöne Vase 花瓶.stl'])
    const datapackage = json(entries.get('datapackage.json'))
    expect(datapackage).toMatchObject({ name: 'schone-vase', title: 'Schöne Vase 花瓶', keywords: [] })
    expect(datapackage.resources[0]).toMatchObject({ name: 'schone-vase-stl', path: 'Schöne Vase 花瓶.stl' })
  })

  it('of a model without files holds its datapackage.json alone; a name with no letter left is "model"', async () => {
    const { res, bytes } = await download(`/api/v1/models/${empty}/package`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toContain('filename="model.zip"')
    const entries = await unzip(bytes)
    expect([...entries.keys()]).toEqual(['datapackage.json'])
    expect(json(entries.get('datapackage.json'))).toMatchObject({ name: 'model', title: '花瓶', resources: [] })
  })

  it('of an unknown model answers 404', async () => {
    const reply = await call(vault.baseUrl, 'GET', `/api/v1/models/${crypto.randomUUID()}/package`, { token })
    expectProblem(reply, 404, 'not_found')
  })

  it('needs the read scope: an upload-only key is refused 403, a read key gets it', async () => {
    const uploadOnly = await createApiKeyAs(vault.baseUrl, token, undefined, ['upload'])
    const refused = await call(vault.baseUrl, 'GET', `/api/v1/models/${vase}/package`, { token: uploadOnly.key })
    expectProblem(refused, 403, 'insufficient_scope')
    const several = await call(vault.baseUrl, 'POST', '/api/v1/models/package', {
      token: uploadOnly.key,
      json: { ids: [vase] },
    })
    expectProblem(several, 403, 'insufficient_scope')
    const reader = await createApiKeyAs(vault.baseUrl, token, undefined, ['read'])
    expect((await download(`/api/v1/models/${vase}/package`, { token: reader.key })).res.status).toBe(200)
    expect((await call(vault.baseUrl, 'GET', `/api/v1/models/${vase}/package`)).status).toBe(401)
  })
})

describe('a package of several models', () => {
  it('holds one folder per model in the order asked, slugs made unique, each laid out as a single package', async () => {
    const twin = await uploadTo(undefined, 'twin.stl', binaryCube(16))
    await call(vault.baseUrl, 'PATCH', `/api/v1/models/${twin}`, { token, json: { name: '3D benchy!' } })
    const { res, bytes } = await download('/api/v1/models/package', {
      method: 'POST',
      json: { ids: [vase, benchy, twin, vase, empty] },
    })
    expectZipAnswer(res, bytes)
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="model-vault-packages-\d{4}-\d{2}-\d{2}\.zip"/,
    )
    const entries = await unzip(bytes)
    expect([...entries.keys()]).toEqual([
      'schone-vase/datapackage.json',
      'schone-vase/Schöne Vase 花瓶.stl',
      '3d-benchy/datapackage.json',
      '3d-benchy/Benchy.stl',
      '3d-benchy/benchy.gcode',
      '3d-benchy/BENCHY (2).STL',
      '3d-benchy/datapackage (2).json',
      '3d-benchy/images (2)',
      '3d-benchy-2/datapackage.json',
      '3d-benchy-2/twin.stl',
      'model/datapackage.json',
    ])
    expect(json(entries.get('3d-benchy-2/datapackage.json'))).toMatchObject({
      name: '3d-benchy-2',
      title: '3D benchy!',
      resources: [{ path: 'twin.stl' }],
    })
    const single = await unzip((await download(`/api/v1/models/${benchy}/package`)).bytes)
    expect(text(entries.get('3d-benchy/benchy.gcode'))).toBe(text(single.get('benchy.gcode')))
  })

  it('answers 422 naming every unknown id, and nothing is sent', async () => {
    const ghosts = [crypto.randomUUID(), crypto.randomUUID()]
    const reply = await call(vault.baseUrl, 'POST', '/api/v1/models/package', {
      token,
      json: { ids: [benchy, ghosts[0], vase, ghosts[1]] },
    })
    const problem = expectProblem(reply, 422, 'validation_failed')
    expect(problem.detail).toBe(`No model has the ids ${ghosts[0]}, ${ghosts[1]}.`)
    expect(problem.errors).toEqual([
      { path: 'body.ids.1', message: 'no such model' },
      { path: 'body.ids.3', message: 'no such model' },
    ])
  })

  it('refuses malformed requests with a problem, never a 500', async () => {
    const bodies: unknown[] = [
      {},
      { ids: [] },
      { ids: Array.from({ length: 501 }, () => benchy) },
      { ids: 'not-a-list' },
      { ids: [42] },
      { ids: [''] },
      { ids: ['a\u0000b'] },
      { ids: ['x'.repeat(101)] },
      { ids: [benchy], extra: true },
      [benchy],
      null,
    ]
    for (const body of bodies) {
      const reply = await call(vault.baseUrl, 'POST', '/api/v1/models/package', { token, json: body })
      expect([400, 422], JSON.stringify(body)).toContain(reply.status)
      expect(reply.headers.get('content-type')).toBe('application/problem+json')
    }
    const notJson = await call(vault.baseUrl, 'POST', '/api/v1/models/package', {
      token,
      body: '{"ids": [',
      headers: { 'Content-Type': 'application/json' },
    })
    expect([400, 422]).toContain(notJson.status)
    expect(notJson.headers.get('content-type')).toBe('application/problem+json')
    const ghost = await call(vault.baseUrl, 'POST', '/api/v1/models/package', { token, json: { ids: ['x'] } })
    expectProblem(ghost, 422, 'validation_failed')
  })
})

describe('a signed package link', () => {
  const packageLink = async (modelId: string) => {
    const reply = await call(vault.baseUrl, 'POST', `/api/v1/models/${modelId}/package-link`, { token })
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return reply.body as { url: string; expires_at: string; expires_in: number }
  }
  const plain = (url: string) => call(vault.baseUrl, 'GET', new URL(url).pathname)
  const tokenOf = (url: string) => new URL(url).pathname.split('/')[6]!

  it('serves the package without a bearer token, under the slug, for VAULT_DOWNLOAD_LINK_TTL_S', async () => {
    const link = await packageLink(benchy)
    expect(link.url).toMatch(new RegExp(`^${vault.baseUrl}/api/v1/signed/packages/${benchy}/[^/]+/3d-benchy\\.zip$`))
    expect(link.expires_in).toBe(900)
    expect(Date.parse(link.expires_at) - Date.now()).toBeGreaterThan(890_000)
    const res = await fetch(link.url)
    const bytes = new Uint8Array(await res.arrayBuffer())
    expectZipAnswer(res, bytes)
    expect(res.headers.get('content-disposition')).toContain('filename="3d-benchy.zip"')
    expect([...(await unzip(bytes)).keys()]).toContain('benchy.gcode')
    expect(JSON.stringify(vault.logs)).not.toContain(tokenOf(link.url))
  })

  it("is refused on another model, on a file's link route, as a bearer token, and altered", async () => {
    const link = await packageLink(benchy)
    const onVase = await plain(link.url.replace(benchy, vase))
    expectProblem(onVase, 403, 'download_link_other_model')
    const file = (await call(vault.baseUrl, 'GET', `/api/v1/models/${benchy}`, { token })).body.files[0]
    const asFileLink = await plain(`${vault.baseUrl}/api/v1/signed/files/${file.id}/${tokenOf(link.url)}/Benchy.stl`)
    expectProblem(asFileLink, 403, 'download_link_other_file')
    const fileLink = await call(vault.baseUrl, 'POST', `/api/v1/files/${file.id}/download-link`, { token })
    const fileToken = tokenOf(fileLink.body.url)
    expectProblem(await plain(link.url.replace(tokenOf(link.url), fileToken)), 403, 'download_link_other_model')
    const asBearer = await call(vault.baseUrl, 'GET', `/api/v1/models/${benchy}/package`, { token: tokenOf(link.url) })
    expect(asBearer.status).toBe(401)
    expectProblem(await plain(link.url.replace(tokenOf(link.url), 'garbage')), 403, 'download_link_invalid')
  })

  it('is 404 for an unknown model, and once its model is deleted', async () => {
    const missing = await call(vault.baseUrl, 'POST', `/api/v1/models/${crypto.randomUUID()}/package-link`, { token })
    expectProblem(missing, 404, 'not_found')
    const doomed = await uploadTo(undefined, 'doomed.stl', binaryCube(18))
    const link = await packageLink(doomed)
    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${doomed}`, { token })).status).toBe(204)
    expectProblem(await plain(link.url), 404, 'not_found')
  })
})

describe('streaming', () => {
  let big: string
  let bigSize: number

  beforeAll(async () => {
    bigSize = 48 * MiB
    big = await uploadTo(undefined, 'big.bin', randomBytes(bigSize))
    await uploadTo(big, 'after-big.txt', 'the file after the big one')
  })

  /** Counts the bytes the vault reads out of its blob store while `during` runs. */
  async function bytesReadFromStore(during: () => Promise<void>): Promise<number> {
    const { blobs } = vault.deps
    const get = blobs.get.bind(blobs)
    let read = 0
    blobs.get = async (key, range) => {
      const body = await get(key, range)
      if (!body) return body
      const counted = new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          read += chunk.byteLength
          controller.enqueue(chunk)
        },
      })
      return { ...body, stream: body.stream.pipeThrough(counted, {}) }
    }
    try {
      await during()
    } finally {
      blobs.get = get
    }
    return read
  }

  /** Starts a package download over a plain socket and stops reading after the first bytes. */
  function stalledDownload(modelId: string) {
    return new Promise<{ received: () => number; resume: () => Promise<'complete' | 'broken'>; length: number }>(
      (resolve, reject) => {
        const request = httpRequest(`${vault.baseUrl}/api/v1/models/${modelId}/package`, {
          headers: authHeaders(token),
        })
        request.on('error', reject)
        request.on('response', (res) => {
          let received = 0
          const length = Number(res.headers['content-length'])
          const ended = new Promise<'complete' | 'broken'>((settle) => {
            res.on('end', () => settle(received === length ? 'complete' : 'broken'))
            res.on('aborted', () => settle('broken'))
            res.on('error', () => settle('broken'))
          })
          res.on('data', (chunk: Buffer) => {
            received += chunk.byteLength
          })
          res.once('data', () => {
            res.pause()
            resolve({
              received: () => received,
              length,
              resume: () => {
                res.resume()
                return ended
              },
            })
          })
        })
        request.end()
      },
    )
  }

  it('reads the store only as fast as a client takes the zip: a client that stops reading holds the server back', async () => {
    let download: Awaited<ReturnType<typeof stalledDownload>> | undefined
    const readWhileStalled = await bytesReadFromStore(async () => {
      download = await stalledDownload(big)
      await new Promise((resolve) => setTimeout(resolve, 1500))
    })
    // Socket buffers on both ends hold a few MiB at most; the rest of the 48 MiB stays unread.
    expect(readWhileStalled).toBeLessThan(12 * MiB)
    expect(download!.length).toBeGreaterThan(bigSize)
    expect(await download!.resume()).toBe('complete')
  })

  it('is cut off, not corrupted, when a stored blob is not the size its file says (damaged storage)', async () => {
    const damaged = await uploadTo(undefined, 'damaged.bin', randomBytes(64 * 1024))
    const [file] = (await call(vault.baseUrl, 'GET', `/api/v1/models/${damaged}`, { token })).body.files
    await appendFile(join(vault.dataDir, 'blobs', file.sha256.slice(0, 2), file.sha256), 'extra bytes')
    const download = await stalledDownload(damaged)
    expect(await download.resume()).toBe('broken')
    expect(vault.logs).toContainEqual(
      expect.objectContaining({
        msg: 'model package cut short',
        error: `The stored bytes of damaged.bin run past the ${64 * 1024} bytes its file states.`,
      }),
    )
  })

  it('ends with a broken zip, never a complete-looking one, when the model is deleted mid-download', async () => {
    const download = await stalledDownload(big)
    const deleted = await call(vault.baseUrl, 'DELETE', `/api/v1/models/${big}`, { token })
    expect(deleted.status).toBe(204)
    expect(await download.resume()).toBe('broken')
    expect(download.received()).toBeLessThan(download.length)
    expect(vault.logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'model package cut short',
        error: 'The stored bytes of documents/after-big.txt are gone (was its model deleted?).',
      }),
    )
  })
})
