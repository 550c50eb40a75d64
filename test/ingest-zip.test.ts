import { createHash } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { type Zippable, zipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, expectProblem, type Reply, signIn, uniqueName } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { asciiCube, binaryCube, putRaw, upload } from './support/uploads.js'
import { blobKeys, countRows, vaultContents } from './support/vault-contents.js'

let vault: TestVault
let token: string
beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
})
afterAll(async () => vault.close())

const encode = (text: string) => new TextEncoder().encode(text)
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')
/** G-code unique to `label` (no two tests share its bytes), with a print host key in its settings. */
const gcode = (label: string) =>
  encode(`; ${label}\nG28\nG1 X10 Y10 Z0.2 E1\nG1 X20 Y10 E2\n; printhost_apikey = zip-secret-key\n`)
/** A binary STL cube whose size is unique to the test (the vault keeps parts unique by their bytes). */
let cubeSize = 10
const uniqueCube = () => binaryCube(cubeSize++)

/** Files the vault holds on scratch disk besides each process directory's owner file. */
const scratchFiles = async () =>
  (await readdir(join(vault.dataDir, 'backups', '.scratch'), { recursive: true })).filter((name) =>
    name.endsWith('.upload'),
  )

/** Asserts that a refused upload left the files, models and blob store as they were. */
async function expectNothingStored(refuse: () => Promise<void>) {
  // Earlier uploads' thumbnails rendered first: what is compared is what the refused upload might change.
  await vault.deps.analysis.idle()
  const before = await vaultContents(vault)
  await refuse()
  expect(await vaultContents(vault)).toEqual(before)
  expect(await scratchFiles()).toEqual([])
}

/** Rewrites the uncompressed size an entry declares, in its local header and central directory record. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const data = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const encoded = encode(name)
  const named = (at: number, nameAt: number) => encoded.every((byte, i) => zip[at + nameAt + i] === byte)
  for (let at = 0; at + 46 <= zip.length; at++) {
    if (data.getUint32(at, true) === 0x04034b50 && named(at, 30)) data.setUint32(at + 22, size, true)
    if (data.getUint32(at, true) === 0x02014b50 && named(at, 46)) data.setUint32(at + 24, size, true)
  }
  return zip
}

/** The answer's entry for `path`, as the server sent it. */
const entry = (body: Reply['body'], path: string) => body.entries.find((e: { path: string }) => e.path === path)

describe('uploading a zip', () => {
  it('unpacks every file of nested folders into one model named after its top folder, skipping clutter with reasons', async () => {
    const cube = uniqueCube()
    const zip = zipSync({
      'Benchy/': new Uint8Array(0),
      'Benchy/parts/cube.stl': cube,
      'Benchy/parts/tall.stl': encode(asciiCube(7, 3)),
      'Benchy/print.gcode': gcode('benchy print'),
      'Benchy/photo.png': encode('not really a png, but a picture by its name'),
      'Benchy/LICENSE': encode('Free to print, benchy edition.'),
      'Benchy/.DS_Store': encode('finder'),
      '__MACOSX/Benchy/._cube.stl': encode('resource fork'),
      'Benchy/extra.zip': zipSync({ 'inner.stl': binaryCube(3) }),
      'Benchy/empty.stl': new Uint8Array(0),
      'Benchy/link.stl': [encode('/etc/passwd'), { os: 3, attrs: 0o120777 << 16 }],
    })
    const res = await upload(vault.baseUrl, token, 'download (1).zip', zip)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body).toMatchObject({ kind: 'archive', stored: 5, duplicates: 0, skipped: 6 })
    expect(res.body.models).toHaveLength(1)
    const [{ model, model_created }] = res.body.models
    expect(model_created).toBe(true)
    expect(model.name).toBe('Benchy')
    const stored = res.body.entries.filter((e: { outcome: string }) => e.outcome === 'stored')
    expect(stored.map((e: { file: { name: string } }) => e.file.name).sort()).toEqual([
      'LICENSE',
      'cube.stl',
      'photo.png',
      'print.gcode',
      'tall.stl',
    ])
    for (const e of stored) expect(e.model_id).toBe(model.id)
    expect(entry(res.body, 'Benchy/photo.png').file.role).toBe('image')
    expect(entry(res.body, 'Benchy/LICENSE').file.role).toBe('document')
    expect(entry(res.body, 'Benchy/print.gcode').file.role).toBe('part')
    // G-code inside a zip is redacted as a single upload is.
    const printed = entry(res.body, 'Benchy/print.gcode')
    const content = await fetch(`${vault.baseUrl}/api/v1/files/${printed.file.id}/content`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(await content.text()).toContain('; printhost_apikey = [redacted]')
    expect(entry(res.body, 'Benchy/parts/cube.stl')).toMatchObject({
      file: { sha256: sha256(cube), format: 'stl', folder: 'parts' },
    })
    // Its thumbnail is rendered in the background, as for a single upload.
    await vault.deps.analysis.idle()
    const cubeFile = await fetch(`${vault.baseUrl}/api/v1/files/${entry(res.body, 'Benchy/parts/cube.stl').file.id}`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(await cubeFile.json()).toMatchObject({ has_thumbnail: true })
    // Folders inside the model are kept; the top folder is the model itself.
    expect(entry(res.body, 'Benchy/print.gcode').file.folder).toBe('')
    const reasons = Object.fromEntries(
      res.body.entries
        .filter((e: { outcome: string }) => e.outcome === 'skipped')
        .map((e: { path: string; reason: string }) => [e.path, e.reason]),
    )
    expect(reasons).toEqual({
      'Benchy/': expect.stringMatching(/folder/),
      'Benchy/.DS_Store': expect.stringMatching(/\.DS_Store/),
      '__MACOSX/Benchy/._cube.stl': expect.stringMatching(/__MACOSX/),
      'Benchy/extra.zip': 'nested archives are not unpacked: upload it on its own',
      'Benchy/empty.stl': 'an empty file',
      'Benchy/link.stl': expect.stringMatching(/symbolic link/),
    })
    // The zip itself is neither a file nor a blob, and its scratch copy is gone.
    expect(await blobKeys(vault)).not.toContain(sha256(zip))
    expect(await scratchFiles()).toEqual([])
    expect(vault.logs.filter((line) => line.msg === 'archive ingested').at(-1)).toMatchObject({
      entries: 11,
      stored: 5,
      skipped: 6,
      new_models: 1,
    })

    const again = await putRaw(vault.baseUrl, token, 'Benchy again.zip', zip)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ kind: 'archive', stored: 0, duplicates: 5, skipped: 6 })
    expect(again.body.models).toEqual([{ model: expect.objectContaining({ id: model.id }), model_created: false }])
  })

  it('names a model after the zip when its files lie loose, and adds them to the model_id given', async () => {
    const res = await putRaw(
      vault.baseUrl,
      token,
      'Calibration set.zip',
      zipSync({ 'a.stl': uniqueCube(), 'b/b.stl': uniqueCube() }),
    )
    expect(res.status).toBe(201)
    expect(res.body.models.map((m: { model: { name: string } }) => m.model.name)).toEqual(['Calibration set'])

    const model = res.body.models[0].model
    const more = await upload(vault.baseUrl, token, 'more.zip', zipSync({ 'c.stl': uniqueCube() }), {
      model_id: model.id,
    })
    expect(more.status).toBe(201)
    expect(more.body.models).toEqual([{ model: expect.objectContaining({ id: model.id }), model_created: false }])
    const detail = await call(vault.baseUrl, 'GET', `/api/v1/models/${model.id}`, { token })
    expect(detail.body.files.map((f: { name: string; folder: string }) => `${f.folder}|${f.name}`).sort()).toEqual([
      'b|b.stl',
      '|a.stl',
      '|c.stl',
    ])
  })

  it("makes the README at the top of a zip's model its description, when the package gives none", async () => {
    const readme = '# Articulated Dragon\n\nPrint in place, 0.2 mm layers. [Source](https://example.com)'
    const res = await upload(
      vault.baseUrl,
      token,
      'dragon.zip',
      zipSync({
        'Dragon/README.md': encode(readme),
        'Dragon/parts/README.txt': encode('the parts folder'),
        'Dragon/body.stl': uniqueCube(),
      }),
    )
    expect(res.status).toBe(201)
    expect(res.body.models[0].model.description).toBe(readme)
    const plain = await upload(
      vault.baseUrl,
      token,
      'plain.zip',
      zipSync({ 'Plain/parts/README.md': encode('nested'), 'Plain/a.stl': uniqueCube() }),
    )
    expect(plain.body.models[0].model.description).toBe('')
  })

  it('keeps a remix whole beside its original: the remix holds its own copy of the original mesh, and deleting either model leaves the other intact', async () => {
    const original = uniqueCube()
    const first = await upload(vault.baseUrl, token, 'Original.zip', zipSync({ 'Original/body.stl': original }))
    const originalModel = first.body.models[0].model
    const remix = await upload(
      vault.baseUrl,
      token,
      'Remix.zip',
      zipSync({ 'Remix/original/body.stl': original, 'Remix/lid.stl': uniqueCube() }),
    )
    expect(remix.status, JSON.stringify(remix.body)).toBe(201)
    expect(remix.body).toMatchObject({ stored: 2, duplicates: 0 })
    const [{ model: remixModel, model_created }] = remix.body.models
    expect(model_created).toBe(true)
    expect(remixModel.id).not.toBe(originalModel.id)
    expect(entry(remix.body, 'Remix/original/body.stl')).toMatchObject({
      model_id: remixModel.id,
      file: { sha256: sha256(original), folder: 'original' },
    })
    expect(await blobKeys(vault)).toContain(sha256(original))

    // Deleting the remix leaves the original's file and its one stored blob.
    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${remixModel.id}`, { token })).status).toBe(204)
    const kept = await call(vault.baseUrl, 'GET', `/api/v1/models/${originalModel.id}`, { token })
    expect(kept.body.files).toMatchObject([{ name: 'body.stl', sha256: sha256(original) }])
    const bytes = await fetch(`${vault.baseUrl}/api/v1/files/${kept.body.files[0].id}/content`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(original)
    // The same zip again makes its model again, now that it is gone.
    const back = await upload(vault.baseUrl, token, 'Remix.zip', zipSync({ 'Remix/original/body.stl': original }))
    expect(back.body.models[0]).toMatchObject({ model_created: true })
  })

  it('makes the model from its parts: a picture or an other file first in the zip that another model holds is its own copy', async () => {
    const logo = encode(`maker logo ${crypto.randomUUID()}`)
    const badge = encode(`<svg><!-- maker badge ${crypto.randomUUID()} --></svg>`)
    const first = await upload(
      vault.baseUrl,
      token,
      'first.zip',
      zipSync({ 'a.stl': uniqueCube(), 'logo.png': logo, 'badge.svg': badge }),
    )
    expect(first.status, JSON.stringify(first.body)).toBe(201)
    const second = await upload(
      vault.baseUrl,
      token,
      'second.zip',
      zipSync({ 'badge.svg': badge, 'logo.png': logo, 'b.stl': uniqueCube() }),
    )
    expect(second.status, JSON.stringify(second.body)).toBe(201)
    // The badge's bytes are held by the first model already: the second model gets its own file of them.
    expect(second.body).toMatchObject({ stored: 3, duplicates: 0 })
    const [{ model, model_created }] = second.body.models
    expect(model_created).toBe(true)
    expect(model.id).not.toBe(first.body.models[0].model.id)
    expect(entry(second.body, 'b.stl')).toMatchObject({ model_id: model.id, file: { role: 'part' } })
    expect(entry(second.body, 'logo.png')).toMatchObject({ model_id: model.id, file: { role: 'image' } })
    expect(entry(second.body, 'badge.svg')).toMatchObject({ outcome: 'stored', model_id: model.id })
    // Meshes, G-code and CAD go in first, then other files, then pictures and documents.
    expect(second.body.entries.map((e: { path: string }) => e.path)).toEqual(['b.stl', 'badge.svg', 'logo.png'])
    const pictures = await upload(vault.baseUrl, token, 'pictures only.zip', zipSync({ 'logo.png': logo }))
    expect(pictures.body.models).toEqual([
      { model: expect.objectContaining({ name: 'pictures only' }), model_created: true },
    ])
  })

  it('answers an ordinary upload with kind "file"', async () => {
    const res = await upload(vault.baseUrl, token, 'single.stl', uniqueCube())
    expect(res.status).toBe(201)
    expect(res.body.kind).toBe('file')
  })

  it('unpacks concurrent uploads of the same zip into one model, each answering without error', async () => {
    const files: Zippable = {}
    for (let i = 0; i < 6; i++) files[`Parts/part-${i}.stl`] = uniqueCube()
    const zip = zipSync(files)
    const before = await countRows(vault, 'models')
    const answers = await Promise.all([1, 2, 3].map(() => upload(vault.baseUrl, token, 'parts.zip', zip)))
    for (const res of answers) {
      expect([200, 201], JSON.stringify(res.body)).toContain(res.status)
      expect(res.body.stored + res.body.duplicates).toBe(6)
    }
    expect(answers.reduce((sum, res) => sum + res.body.stored, 0)).toBe(6)
    expect(await countRows(vault, 'models')).toBe(before + 1)
    expect(await scratchFiles()).toEqual([])
  })

  it('keeps the names Windows writes in CP437 (no UTF-8 flag) as they were, umlauts and all', async () => {
    const zip = zipSync({ 'Halter/Gr##e Halter.stl': uniqueCube() })
    // fflate writes an ASCII name without the UTF-8 flag; "Größe" in CP437 is as long as "Gr##e".
    const placeholder = encode('Gr##e')
    for (let at = zip.indexOf(placeholder[0] as number); at >= 0; at = zip.indexOf(placeholder[0] as number, at + 1))
      if (placeholder.every((byte, i) => zip[at + i] === byte)) zip.set([0x47, 0x72, 0x94, 0xe1, 0x65], at)
    const res = await upload(vault.baseUrl, token, 'halter.zip', zip)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(entry(res.body, 'Halter/Größe Halter.stl')).toMatchObject({ outcome: 'stored' })
    const model = await call(vault.baseUrl, 'GET', `/api/v1/models/${res.body.models[0].model.id}`, { token })
    expect(model.body.files.map((file: { name: string }) => file.name)).toEqual(['Größe Halter.stl'])
  })
})

describe('a zip refused as a whole stores nothing', () => {
  it('refuses a zip bomb by its compression ratio', async () => {
    const zip = zipSync({ 'bomb.stl': new Uint8Array(64 * 1024 * 1024) })
    await expectNothingStored(async () => {
      const res = await upload(vault.baseUrl, token, 'bomb.zip', zip)
      expect(expectProblem(res, 422, 'unsafe_file').detail).toMatch(/ratio above 200:1/)
    })
  })

  it('refuses names that leave the archive: ../ and absolute paths', async () => {
    for (const name of ['../escape.stl', '/etc/cron.d/evil.stl', 'a/../../b.stl']) {
      await expectNothingStored(async () => {
        const res = await putRaw(
          vault.baseUrl,
          token,
          'tricks.zip',
          zipSync({ 'fine.stl': uniqueCube(), [name]: uniqueCube() }),
        )
        expect(expectProblem(res, 422, 'unsafe_file').detail).toMatch(/absolute or escapes the package/)
      })
    }
  })

  it('refuses a file that is not a zip, a truncated zip and an empty zip', async () => {
    const whole = zipSync({ 'x.stl': uniqueCube() })
    const cases: [string, Uint8Array, string][] = [
      ['not a zip', encode('solid cube\nendsolid cube\n'.repeat(10)), 'unreadable_archive'],
      ['truncated', whole.subarray(0, whole.length - 30), 'unreadable_archive'],
      ['empty', zipSync({}), 'validation_failed'],
    ]
    for (const [what, bytes, code] of cases) {
      await expectNothingStored(async () => {
        const res = await upload(vault.baseUrl, token, `${what}.zip`, bytes)
        expectProblem(res, 422, code)
      })
    }
  })

  it('refuses 10,000 tiny entries at once: more than the limit of 1,000', async () => {
    const files: Zippable = {}
    for (let i = 0; i < 10_000; i++) files[`f/${i}.txt`] = encode(String(i))
    await expectNothingStored(async () => {
      const started = performance.now()
      const res = await upload(vault.baseUrl, token, 'many.zip', zipSync(files, { level: 0 }))
      expect(expectProblem(res, 422, 'unsafe_file').detail).toMatch(/10000 entries, more than the limit of 1000/)
      expect(performance.now() - started).toBeLessThan(5000)
    })
  })
})

describe('entries refused one by one', () => {
  it('skips an entry that inflates past the size it declares and keeps the rest', async () => {
    const liar = zipSync({ 'good.stl': uniqueCube(), 'liar.stl': new Uint8Array(4 * 1024 * 1024).fill(65) })
    const res = await upload(vault.baseUrl, token, 'liar.zip', declareSize(liar, 'liar.stl', 1000))
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body).toMatchObject({ stored: 1, skipped: 1 })
    expect(entry(res.body, 'liar.stl')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/inflates to more than the 1000 bytes it declares/),
    })
    expect(await scratchFiles()).toEqual([])
  })

  it('skips an entry larger than VAULT_MAX_UPLOAD_BYTES in a zip that is itself under it', async () => {
    const small = await startTestVault({ ...adminEnv, VAULT_MAX_UPLOAD_BYTES: '4000' })
    try {
      const smallToken = (await signIn(small.baseUrl, admin)).access_token
      const zip = zipSync({ 'fits.stl': binaryCube(5), 'large.txt': new Uint8Array(10_000).fill(65) })
      expect(zip.length).toBeLessThan(4000)
      const res = await upload(small.baseUrl, smallToken, 'mixed.zip', zip)
      expect(res.status, JSON.stringify(res.body)).toBe(201)
      expect(entry(res.body, 'large.txt')).toMatchObject({
        outcome: 'skipped',
        reason: '10000 bytes, more than the upload limit of 4000 bytes (VAULT_MAX_UPLOAD_BYTES)',
      })
      expect(entry(res.body, 'fits.stl')).toMatchObject({ outcome: 'stored' })
    } finally {
      await small.close()
    }
  })

  it('unpacks 1,000 tiny entries, the most a zip may hold, without stalling the event loop', async () => {
    const files: Zippable = {}
    for (let i = 0; i < 1_000; i++) files[`tiny/${i}.txt`] = encode(`tiny ${i}\n`)
    const zip = zipSync(files)
    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    const started = performance.now()
    const res = await upload(vault.baseUrl, token, 'tiny.zip', zip)
    const seconds = (performance.now() - started) / 1000
    delay.disable()
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ stored: 1_000, skipped: 0 })
    console.info(
      `1,000 tiny entries: ${seconds.toFixed(1)} s, event loop delay max ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms`,
    )
    expect(delay.max / 1e6).toBeLessThan(1000)
  }, 600_000)
})

describe('a model package (datapackage.json)', () => {
  /** A package's datapackage.json per the design, listing `files` by their paths in the zip. */
  function datapackage(
    title: string,
    files: Record<string, Uint8Array>,
    extra: { keywords?: unknown; collections?: unknown; hashes?: Record<string, string> } = {},
  ) {
    return encode(
      JSON.stringify({
        profile: 'data-package',
        name: title.toLowerCase().replace(/[^a-z0-9._-]+/g, '-'),
        title,
        description: `The ${title}, printed in one piece.`,
        keywords: extra.keywords ?? ['boat', 'calibration'],
        created: '2026-11-25T10:00:00.000Z',
        resources: Object.entries(files).map(([path, bytes], index) => ({
          name: `resource-${index}`,
          path,
          bytes: bytes.length,
          hash: `sha256:${extra.hashes?.[path] ?? sha256(bytes)}`,
          model_vault: {
            role: path.startsWith('images/') ? 'image' : path.startsWith('documents/') ? 'document' : 'part',
            original_name: `original ${path.split('/').at(-1)}`,
            ...(path.includes('cover') ? { cover: true } : {}),
          },
        })),
        model_vault: {
          version: 1,
          model_id: crypto.randomUUID(),
          collections: extra.collections ?? ['Boats'],
          exported_at: '2026-11-25T11:00:00.000Z',
        },
      }),
    )
  }

  it('reads the name, description, tags, collections and original names back, and skips an entry whose hash does not match', async () => {
    const files = {
      'Benchy.stl': uniqueCube(),
      'images/photo.png': encode(`a photo ${crypto.randomUUID()}`),
      'images/cover.png': encode(`the cover ${crypto.randomUUID()}`),
      'documents/README.md': encode(`# Benchy ${crypto.randomUUID()}`),
      'tampered.stl': uniqueCube(),
    }
    const title = uniqueName('3D Benchy')
    const zip = zipSync({
      'datapackage.json': datapackage(title, files, { hashes: { 'tampered.stl': '0'.repeat(64) } }),
      ...files,
      'notes.txt': encode(`not listed ${crypto.randomUUID()}`),
    })
    const res = await upload(vault.baseUrl, token, 'benchy-package.zip', zip)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(res.body).toMatchObject({ stored: 5, skipped: 2 })
    expect(entry(res.body, 'datapackage.json')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/package description/),
    })
    expect(entry(res.body, 'tampered.stl')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(`not the sha256:${'0'.repeat(64)} the package lists`),
    })
    expect(entry(res.body, 'images/photo.png')).toMatchObject({ file: { name: 'original photo.png' } })
    expect(entry(res.body, 'notes.txt')).toMatchObject({ outcome: 'stored', file: { name: 'notes.txt' } })

    const detail = await call(vault.baseUrl, 'GET', `/api/v1/models/${res.body.models[0].model.id}`, { token })
    expect(detail.body).toMatchObject({
      name: title,
      description: `The ${title}, printed in one piece.`,
      tags: ['boat', 'calibration'],
      collections: [expect.objectContaining({ name: 'Boats' })],
      // The image the package marks as the cover, not the first one unpacked.
      cover_file_id: entry(res.body, 'images/cover.png').file.id,
    })
    expect(detail.body.files.map((f: { name: string }) => f.name).sort()).toEqual([
      'notes.txt',
      'original Benchy.stl',
      'original README.md',
      'original cover.png',
      'original photo.png',
    ])
  })

  it('unpacks a package of several models, one per folder, and refuses one with model_id', async () => {
    const first = { 'Boat.stl': uniqueCube() }
    const second = { 'Tower.stl': uniqueCube() }
    const names = [uniqueName('Boat'), uniqueName('Tower')]
    const zip = zipSync({
      'boat/datapackage.json': datapackage(names[0] as string, first, { collections: ['Boats', 'Harbour'] }),
      'boat/Boat.stl': first['Boat.stl'],
      'tower/datapackage.json': datapackage(names[1] as string, second, { keywords: [] }),
      'tower/Tower.stl': second['Tower.stl'],
      '__MACOSX/._boat': encode('fork'),
    })
    const existing = (await upload(vault.baseUrl, token, 'host.stl', uniqueCube())).body.model.id
    await expectNothingStored(async () => {
      const res = await upload(vault.baseUrl, token, 'library.zip', zip, { model_id: existing })
      expectProblem(res, 422, 'validation_failed')
    })

    const res = await upload(vault.baseUrl, token, 'library.zip', zip)
    expect(res.status, JSON.stringify(res.body)).toBe(201)
    expect(
      res.body.models.map((m: { model: { name: string }; model_created: boolean }) => [m.model.name, m.model_created]),
    ).toEqual([
      [names[0], true],
      [names[1], true],
    ])
    expect(entry(res.body, '__MACOSX/._boat')).toMatchObject({ outcome: 'skipped' })
    const collections = await call(vault.baseUrl, 'GET', '/api/v1/collections', { token })
    expect(collections.body.items ?? collections.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'Harbour' })]),
    )
  })

  it('refuses a package whose tags break the rules of a model edit, storing nothing', async () => {
    const files = { 'x.stl': uniqueCube() }
    await expectNothingStored(async () => {
      const res = await upload(
        vault.baseUrl,
        token,
        'bad-tags.zip',
        zipSync({ 'datapackage.json': datapackage('Bad tags', files, { keywords: ['fine', 'not, fine'] }), ...files }),
      )
      const body = expectProblem(res, 422, 'validation_failed')
      expect(body.errors).toEqual([
        { path: 'datapackage.json.keywords.1', message: 'may not hold commas or control characters' },
      ])
    })
  })
})
