import { createHash } from 'node:crypto'
import { decode } from 'fast-png'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, signIn } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { asciiCube, binaryCube, putRaw, sliceShape, upload } from './support/uploads.js'
import { vaultContents } from './support/vault-contents.js'

let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault.close())

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex')

describe('uploading a mesh', () => {
  it('stores an STL under its hash, reads its geometry, creates a model named after it and renders its thumbnail after answering', async () => {
    const cube = binaryCube(20)
    const res = await upload(vault.baseUrl, token, 'Calibration Cube.stl', cube)
    expect(res.status).toBe(201)
    expect(res.body.duplicate).toBe(false)
    expect(res.body.model_created).toBe(true)
    expect(res.body.file).toMatchObject({
      name: 'Calibration Cube.stl',
      format: 'stl',
      size: cube.length,
      sha256: sha256(cube),
      parse_warnings: [],
    })
    expect(res.body.file.metadata.mesh).toMatchObject({ triangles: 12, size: [20, 20, 20], manifold: true })
    expect(res.body.file.metadata.mesh.volume).toBeCloseTo(8000, 3)
    // The figures come with the answer; the thumbnail is rendered in the background.
    expect(res.body.model).toMatchObject({ name: 'Calibration Cube', has_thumbnail: false, analysing_files: 1 })

    await vault.deps.analysis.idle()
    const model = await call(vault.baseUrl, 'GET', `/api/v1/models/${res.body.model.id}`, { token })
    expect(model.body).toMatchObject({ has_thumbnail: true, analysing_files: 0 })
    expect(model.body.files[0]).toMatchObject({ has_thumbnail: true })
    const thumbnail = await fetch(`${vault.baseUrl}${model.body.thumbnail_url}`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(thumbnail.status).toBe(200)
    expect(thumbnail.headers.get('content-type')).toBe('image/png')
    const image = decode(new Uint8Array(await thumbnail.arrayBuffer()))
    expect(image.width).toBeGreaterThanOrEqual(128)
  })

  it('answers a second upload of the same bytes as a duplicate, storing nothing new', async () => {
    const cube = binaryCube(21)
    const first = await upload(vault.baseUrl, token, 'cube21.stl', cube)
    // Its thumbnail rendered first: what is compared is what the second upload might change.
    await vault.deps.analysis.idle()
    const before = await vaultContents(vault)
    const second = await upload(vault.baseUrl, token, 'renamed-copy.stl', cube)
    expect(second.status).toBe(200)
    expect(second.body.duplicate).toBe(true)
    expect(second.body.model_created).toBe(false)
    expect(second.body.file.id).toBe(first.body.file.id)
    expect(second.body.model.id).toBe(first.body.model.id)
    expect(second.body.file.name).toBe('cube21.stl')
    expect(await vaultContents(vault)).toEqual(before)
  })

  it('puts the ASCII STL of a mesh on the same model as its binary STL', async () => {
    const binary = await upload(vault.baseUrl, token, 'cube22.stl', binaryCube(22, 5))
    const ascii = await upload(vault.baseUrl, token, 'cube22-ascii.stl', asciiCube(22, 5))
    expect(ascii.status).toBe(201)
    expect([binary.body.model_created, ascii.body.model_created]).toEqual([true, false])
    expect(ascii.body.file.id).not.toBe(binary.body.file.id)
    expect(ascii.body.model.id).toBe(binary.body.model.id)
    expect(ascii.body.file.metadata.mesh.triangles).toBe(12)
  })

  it('attaches a file to the model named in model_id, and refuses an unknown one', async () => {
    const target = await upload(vault.baseUrl, token, 'target.stl', binaryCube(23))
    const attached = await upload(vault.baseUrl, token, 'notes.txt', 'print at 215 °C', {
      model_id: target.body.model.id,
    })
    expect(attached.status).toBe(201)
    expect(attached.body.model.id).toBe(target.body.model.id)
    expect(attached.body.file).toMatchObject({ format: 'document', role: 'document' })
    const unknown = await upload(vault.baseUrl, token, 'other.txt', 'x', { model_id: 'no-such-model' })
    expect(unknown.status).toBe(422)
    expect(unknown.body.errors).toEqual([expect.objectContaining({ path: 'body.model_id' })])
  })
})

describe('files from the real slicer', () => {
  it('a 3MF exported from an STL and the G-code sliced from it join the STL’s model', async () => {
    const sliced = sliceShape('box')
    const stl = await upload(vault.baseUrl, token, 'box.stl', sliced.stl)
    expect(stl.status).toBe(201)
    expect(stl.body.file.metadata.mesh).toMatchObject({ triangles: 12, manifold: true })

    const threeMf = await upload(vault.baseUrl, token, 'box.3mf', sliced.threeMf)
    expect(threeMf.status).toBe(201)
    expect(threeMf.body.model.id).toBe(stl.body.model.id)
    expect(threeMf.body.file.metadata.mesh.triangles).toBe(12)

    const gcode = await upload(vault.baseUrl, token, 'box.gcode', sliced.gcode)
    expect(gcode.status).toBe(201)
    expect(gcode.body.model.id).toBe(stl.body.model.id)
    const meta = gcode.body.file.metadata.gcode
    expect(meta.slicer).toMatchObject({ name: 'PrusaSlicer' })
    expect(meta.estimated_time_s).toBeGreaterThan(0)
    expect(meta.filament.length_mm).toBeGreaterThan(0)
    expect(meta.layer_height_mm).toBeGreaterThan(0)

    const detail = await call(vault.baseUrl, 'GET', `/api/v1/models/${stl.body.model.id}`, { token })
    expect(detail.status).toBe(200)
    expect(detail.body.files.map((f: { name: string }) => f.name)).toEqual(['box.stl', 'box.3mf', 'box.gcode'])
  })

  it('a G-code whose file name says nothing joins the model its sliced objects name', async () => {
    const sliced = sliceShape('cone')
    const stl = await upload(vault.baseUrl, token, 'cone.stl', sliced.stl)
    const gcode = await upload(vault.baseUrl, token, 'plate 7.gcode', sliced.gcode)
    expect(gcode.body.file.metadata.gcode.objects).toEqual(['cone.stl id:0 copy 0'])
    expect(gcode.body.model.id).toBe(stl.body.model.id)
  })

  it('a G-code that names no known model gets a model of its own', async () => {
    const gcode = await upload(
      vault.baseUrl,
      token,
      'mystery-part.gcode',
      ';FLAVOR:Marlin\n;TIME:60\nG28\nG1 X10 Y10\n',
    )
    expect(gcode.status).toBe(201)
    expect(gcode.body.model.name).toBe('mystery-part')
  })

  it('redacts slicer secrets before storing G-code metadata', async () => {
    const sliced = sliceShape('cylinder')
    const withSecret = sliced.gcode
      .toString('utf8')
      .replace(
        /; prusaslicer_config = begin\n/,
        '; prusaslicer_config = begin\n; printhost_apikey = sup3r-s3cret-key\n',
      )
    expect(withSecret).toContain('sup3r-s3cret-key')
    const res = await putRaw(vault.baseUrl, token, 'cylinder-secret.gcode', withSecret)
    expect(res.status).toBe(201)
    expect(JSON.stringify(res.body)).not.toContain('sup3r-s3cret-key')
    const stored = await vault.deps.database.db
      .selectFrom('files')
      .select('metadata')
      .where('id', '=', res.body.file.id)
      .executeTakeFirstOrThrow()
    expect(stored.metadata).not.toContain('sup3r-s3cret-key')
    expect(res.body.file.metadata.gcode.config.printhost_apikey).toBe('[redacted]')
  })
})

describe('file names in multipart uploads', () => {
  it('keeps quote marks and line breaks as the sender meant them: browsers, fetch and curl send them as %22, %0D and %0A', async () => {
    // The WHATWG multipart/form-data encoding escapes exactly these three in a part's file name.
    const quoted = await upload(vault.baseUrl, token, 'the "best" cube.stl', binaryCube(26))
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(201)
    expect(quoted.body.file.name).toBe('the "best" cube.stl')
    // Line breaks are then dropped as every control character is; other escapes stay as typed.
    const broken = await upload(vault.baseUrl, token, 'two\nlines 100%41.stl', binaryCube(27))
    expect(broken.body.file.name).toBe('twolines 100%41.stl')
  })
})

describe('raw PUT uploads', () => {
  it('stores the body under the name in the path, and dedups like multipart', async () => {
    const cube = binaryCube(24)
    const first = await putRaw(vault.baseUrl, token, 'raw cube.stl', cube)
    expect(first.status).toBe(201)
    expect(first.body.file.name).toBe('raw cube.stl')
    const again = await upload(vault.baseUrl, token, 'raw cube.stl', cube)
    expect(again.status).toBe(200)
    expect(again.body.file.id).toBe(first.body.file.id)
  })
})

describe('downloading', () => {
  let file: { id: string; sha256: string; download_url: string }
  const bytes = binaryCube(25)
  beforeAll(async () => {
    file = (await upload(vault.baseUrl, token, 'Würfel 25mm.stl', bytes)).body.file
  })
  const get = (headers: Record<string, string> = {}) =>
    fetch(`${vault.baseUrl}${file.download_url}`, { headers: { Authorization: `Bearer ${token}`, ...headers } })

  it('streams the exact bytes with the original name, type, length and ETag', async () => {
    const res = await get()
    expect(res.status).toBe(200)
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes)
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="W_rfel 25mm.stl"; filename*=UTF-8''W%C3%BCrfel%2025mm.stl`,
    )
    expect(res.headers.get('content-type')).toBe('model/stl')
    expect(res.headers.get('content-length')).toBe(String(bytes.length))
    expect(res.headers.get('etag')).toBe(`"${file.sha256}"`)
    expect(res.headers.get('accept-ranges')).toBe('bytes')
  })

  it('answers 304 to a matching If-None-Match', async () => {
    expect((await get({ 'If-None-Match': `"${file.sha256}"` })).status).toBe(304)
  })

  it('serves byte ranges, honours If-Range, and refuses an unsatisfiable range with 416', async () => {
    const partial = await get({ Range: 'bytes=80-83' })
    expect(partial.status).toBe(206)
    expect(partial.headers.get('content-range')).toBe(`bytes 80-83/${bytes.length}`)
    expect(new Uint8Array(await partial.arrayBuffer())).toEqual(bytes.subarray(80, 84))
    const suffix = await get({ Range: 'bytes=-10' })
    expect(new Uint8Array(await suffix.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 10))
    const stale = await get({ Range: 'bytes=0-9', 'If-Range': '"some-other-version"' })
    expect(stale.status).toBe(200)
    const outside = await get({ Range: `bytes=${bytes.length + 10}-` })
    expect(outside.status).toBe(416)
    expect(outside.headers.get('content-range')).toBe(`bytes */${bytes.length}`)
  })

  it('answers an unsatisfiable range with a 416 problem that is neither the file type nor cached forever', async () => {
    const outside = await get({ Range: `bytes=${bytes.length}-${bytes.length + 5}` })
    expect(outside.status).toBe(416)
    expect(outside.headers.get('content-type')).toBe('application/problem+json')
    expect(outside.headers.get('content-range')).toBe(`bytes */${bytes.length}`)
    expect(outside.headers.get('cache-control')).toBe('no-store')
    const body = (await outside.json()) as { status: number; code: string }
    expect(body).toMatchObject({ status: 416, code: 'range_not_satisfiable' })
  })

  it('ignores a Range it cannot read (RFC 9110 §14.2) and sends the whole file', async () => {
    for (const range of ['bytes=5-2', 'bytes=abc', 'bytes=', 'items=0-5', 'bytes=1-2,5-3', 'garbage']) {
      const res = await get({ Range: range })
      expect(res.status, range).toBe(200)
      expect(res.headers.get('content-range'), range).toBeNull()
      expect(new Uint8Array(await res.arrayBuffer()), range).toEqual(bytes)
    }
  })

  it('answers 404 problems for unknown files and models', async () => {
    for (const path of [
      '/api/v1/files/nope',
      '/api/v1/files/nope/content',
      '/api/v1/models/nope',
      '/api/v1/models/nope/thumbnail',
    ]) {
      const res = await call(vault.baseUrl, 'GET', path, { token })
      expect(res.status, path).toBe(404)
      expect(res.headers.get('content-type')).toBe('application/problem+json')
    }
  })
})
