import { describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from '../src/core/formats/byte-source.js'
import { createMeshStats } from '../src/core/formats/mesh-stats.js'
import { readStl } from '../src/core/formats/stl.js'
import { adminEnv } from './support/accounts.js'
import { callApi, postUpload } from './support/in-process-api.js'
import { sphereStl } from './support/sphere-mesh.js'
import { setUpInProcessSuite } from './support/test-vault.js'
import { binaryCube } from './support/uploads.js'

interface UploadedFile {
  id: string
  preview_triangles: number | null
  preview_url: string | null
  metadata: { mesh: { size: number[]; triangles: number } }
}

describe('preview meshes of large meshes', () => {
  // Grace 0: the sweep would take any stored preview no row names.
  const suite = setUpInProcessSuite({ ...adminEnv, VAULT_GC_GRACE_MINUTES: '0' })
  const get = (path: string, headers: Record<string, string> = {}) =>
    suite.vault.app.request(path, { headers: { Authorization: suite.authorization, ...headers } })
  const fileNow = async (id: string) => (await (await get(`/api/v1/files/${id}`)).json()) as UploadedFile

  it('makes one on upload, serves it as STL of the same size, and removes it with the file', async () => {
    // 300 × 400 × 2 = 240,000 triangles (12 MB): over the 200,000 from which a preview is made.
    const uploaded = await postUpload<{ file: UploadedFile }>(suite, 'Big sphere.stl', await sphereStl(300, 400, 40))
    expect(uploaded.status).toBe(201)
    // The answer comes before the preview: the analysis queue makes it in the background.
    expect(uploaded.body.file).toMatchObject({ preview_triangles: null, preview_url: null })
    await suite.vault.deps.analysis.idle()
    const file = await fileNow(uploaded.body.file.id)
    expect(file.preview_triangles).toBeGreaterThan(25_000)
    expect(file.preview_triangles).toBeLessThanOrEqual(100_000)
    expect(file.preview_url).toBe(`/api/v1/files/${file.id}/preview`)

    const answer = await get(file.preview_url as string)
    expect(answer.status).toBe(200)
    expect(answer.headers.get('content-type')).toBe('model/stl')
    const etag = answer.headers.get('etag')
    const stats = createMeshStats()
    await readStl(byteSourceFromBytes(new Uint8Array(await answer.arrayBuffer())), stats)
    const preview = stats.finish()
    expect(preview.triangles).toBe(file.preview_triangles)
    for (const [axis, size] of file.metadata.mesh.size.entries()) expect(preview.size[axis]).toBeCloseTo(size, 0)
    expect((await get(file.preview_url as string, { 'If-None-Match': etag ?? '' })).status).toBe(304)

    // Garbage collection keeps what a row names; deleting the file lets the preview go.
    const previewKey = await suite.vault.deps.database.db
      .selectFrom('files')
      .select('preview_sha256')
      .where('id', '=', file.id)
      .executeTakeFirstOrThrow()
    expect(previewKey.preview_sha256).toMatch(/^[0-9a-f]{64}$/)
    expect((await callApi(suite, 'POST', '/api/v1/maintenance/gc')).status).toBe(200)
    expect(await suite.vault.deps.thumbnails.stat(previewKey.preview_sha256 as string)).not.toBeNull()
    expect((await callApi(suite, 'DELETE', `/api/v1/files/${file.id}`)).status).toBe(204)
    expect(await suite.vault.deps.thumbnails.stat(previewKey.preview_sha256 as string)).toBeNull()
    expect((await get(file.preview_url as string)).status).toBe(404)
  })

  it('makes none for a small mesh, and answers 404 problem+json for its preview', async () => {
    const uploaded = await postUpload<{ file: UploadedFile }>(suite, 'Cube.stl', binaryCube(12, 3))
    expect(uploaded.body.file).toMatchObject({ preview_triangles: null, preview_url: null })
    const answer = await get(`/api/v1/files/${uploaded.body.file.id}/preview`)
    expect(answer.status).toBe(404)
    expect(answer.headers.get('content-type')).toMatch(/application\/problem\+json/)
  })

  it('keeps the preview with the other copy when the same content stays in another model', async () => {
    const bytes = await sphereStl(320, 400, 25)
    const first = await postUpload<{ file: UploadedFile }>(suite, 'Ball.stl', bytes)
    // Stored again before the first is rendered: one rendering serves both files.
    const second = await postUpload<{ file: UploadedFile }>(suite, 'Ball.stl', bytes, { model_name: 'Ball again' })
    await suite.vault.deps.analysis.idle()
    const [firstFile, secondFile] = [await fileNow(first.body.file.id), await fileNow(second.body.file.id)]
    expect(firstFile.preview_triangles).toBeGreaterThan(25_000)
    expect(secondFile.preview_triangles).toBe(firstFile.preview_triangles)
    expect((await callApi(suite, 'DELETE', `/api/v1/files/${first.body.file.id}`)).status).toBe(204)
    expect((await get(secondFile.preview_url as string)).status).toBe(200)
  })
})
