import { afterEach, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, type Reply, signIn } from './support/accounts.js'
import { gridThreeMf, manyPlacementsThreeMf } from './support/hostile-files.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

const vaults: TestVault[] = []
afterEach(async () => {
  for (const vault of vaults.splice(0)) await vault.close()
})

async function start(env: Record<string, string>) {
  const vault = await startTestVault({ ...adminEnv, ...env })
  vaults.push(vault)
  return { vault, token: (await signIn(vault.baseUrl, admin)).access_token }
}

/** Asks for health one request after another until `work` settles; counts the answers that came before. */
async function healthWhile<T>(baseUrl: string, work: Promise<T>) {
  let settled = false
  const done = work.finally(() => {
    settled = true
  })
  const answers: number[] = []
  while (!settled) {
    const res = await fetch(`${baseUrl}/api/v1/health`)
    await res.arrayBuffer()
    if (!settled) answers.push(res.status)
  }
  return { result: await done, answers }
}

/** The answer to an upload kept as an opaque file: stored, no figures, one warning saying why. */
function expectOpaque(res: Reply, warning: string) {
  expect(res.status).toBe(201)
  expect(res.body.file.metadata).toEqual({})
  expect(res.body.file.parse_warnings).toEqual([`Stored as an opaque file: ${warning}`])
}

const fileNow = async (vault: TestVault, token: string, id: string) =>
  (await call(vault.baseUrl, 'GET', `/api/v1/files/${id}`, { token })).body

const readersStarted = (vault: TestVault) => vault.logs.filter((line) => line.msg === 'file reader started').length

// Each test reads files that take seconds of CPU on purpose; a busy machine needs the room.
describe('reading uploaded files off the request thread', { timeout: 180_000 }, () => {
  it('answers health again and again while a heavy mesh is being read', async () => {
    // Every hostile file is made before the vault starts: making one takes seconds of this
    // thread, which the vault shares, and an idle keep-alive connection would lapse meanwhile.
    const grid = gridThreeMf(250)
    const { vault, token } = await start({ VAULT_EXTRACT_WORKERS: '1' })
    // The reader thread is started by a first small file, so what follows measures reading only.
    expect((await upload(vault.baseUrl, token, 'warm-up.stl', binaryCube(10))).status).toBe(201)

    await vault.deps.analysis.idle()
    // Its reading for the answer, then its rendering in the background: both on the reader thread.
    const readAndRendered = upload(vault.baseUrl, token, 'grid.3mf', grid).then(async (reply) => {
      await vault.deps.analysis.idle()
      return reply
    })
    const { result, answers } = await healthWhile(vault.baseUrl, readAndRendered)
    expect(result.status).toBe(201)
    expect(result.body.file.metadata.mesh.triangles).toBe(2 * 250 * 250)
    expect((await fileNow(vault, token, result.body.file.id)).has_thumbnail).toBe(true)
    // Read on the request thread, the same file let 13 health requests through (its long
    // synchronous stretches hold them); read by a worker, 244 (both on a busy 2-core machine).
    expect(answers.length, 'health answers while the file was read').toBeGreaterThanOrEqual(50)
    expect(new Set(answers)).toEqual(new Set([200]))
  })

  it('keeps a file whose reading overruns VAULT_EXTRACT_TIMEOUT_MS as an opaque file, then reads the next one', async () => {
    // 2,000,000 triangles: many times the budget's worth of reading on a fast machine as on a slow one.
    const grid = gridThreeMf(1000)
    const { vault, token } = await start({ VAULT_EXTRACT_WORKERS: '1', VAULT_EXTRACT_TIMEOUT_MS: '3000' })
    const slow = await upload(vault.baseUrl, token, 'slow.3mf', grid)
    expectOpaque(slow, 'reading it took longer than 3000 ms, the limit for one file.')
    const stored = await fetch(`${vault.baseUrl}${slow.body.file.download_url}`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    // Buffer.equals, not toEqual: a deep comparison of megabytes would hold this thread for seconds.
    expect(Buffer.from(await stored.arrayBuffer()).equals(grid)).toBe(true)

    const next = await upload(vault.baseUrl, token, 'cube.stl', binaryCube(20))
    expect(next.status).toBe(201)
    expect(next.body.file.parse_warnings).toEqual([])
    expect(next.body.file.metadata.mesh.triangles).toBe(12)
    await vault.deps.analysis.idle()
    expect((await fileNow(vault, token, next.body.file.id)).has_thumbnail).toBe(true)
    expect(readersStarted(vault)).toBe(2)
  })

  it('keeps a file whose reading needs more heap than VAULT_EXTRACT_MEMORY_MB as an opaque file, and stays up', async () => {
    const placements = manyPlacementsThreeMf(400_000)
    const { vault, token } = await start({ VAULT_EXTRACT_WORKERS: '1', VAULT_EXTRACT_MEMORY_MB: '32' })
    const hungry = await upload(vault.baseUrl, token, 'placements.3mf', placements)
    expectOpaque(hungry, 'reading it needed more than 32 MiB of memory, the limit for one file.')
    expect((await fetch(`${vault.baseUrl}/api/v1/health`)).status).toBe(200)
    const next = await upload(vault.baseUrl, token, 'cube.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n')
    expect(next.status).toBe(201)
    expect(next.body.file.metadata.mesh.triangles).toBe(1)
  })

  it('reads more concurrent heavy uploads than VAULT_EXTRACT_WORKERS, never with more threads than that', async () => {
    const sides = [120, 121, 122]
    const grids = sides.map(gridThreeMf)
    const { vault, token } = await start({ VAULT_EXTRACT_WORKERS: '2' })
    const results = await Promise.all(
      grids.map((grid, i) => upload(vault.baseUrl, token, `grid-${sides[i]}.3mf`, grid)),
    )
    expect(results.map((res) => res.status)).toEqual([201, 201, 201])
    expect(results.map((res) => res.body.file.metadata.mesh.triangles)).toEqual(sides.map((side) => 2 * side * side))
    expect(readersStarted(vault)).toBe(2)
  })
})
