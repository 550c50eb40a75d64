import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  admin,
  adminEnv,
  call,
  expectInvalidToken,
  expectProblem,
  getMe,
  newAccount,
  signIn,
} from './support/accounts.js'
import { gridThreeMf } from './support/hostile-files.js'
import { shiftedClock } from './support/shifted-clock.js'
import { startTestVault, type TestVault } from './support/test-vault.js'
import { binaryCube, upload } from './support/uploads.js'

const publicUrl = 'https://prints.home.arpa/vault'

let vault: TestVault
let token: string
let cube: { id: string; bytes: Uint8Array }
let project: { id: string; bytes: Uint8Array }

async function uploadFile(target: TestVault, accessToken: string, name: string, bytes: Uint8Array) {
  const reply = await upload(target.baseUrl, accessToken, name, bytes)
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return { id: reply.body.file.id as string, bytes }
}

async function downloadLink(target: TestVault, accessToken: string, fileId: string) {
  const reply = await call(target.baseUrl, 'POST', `/api/v1/files/${fileId}/download-link`, { token: accessToken })
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as {
    url: string
    expires_at: string
    expires_in: number
    slicer_links: Record<string, string | undefined>
  }
}

/** The link's path below the vault, so it can be fetched from any instance of the install. */
const pathOf = (url: string) => new URL(url).pathname
const tokenOf = (url: string) => pathOf(url).split('/')[6] ?? ''
const withToken = (url: string, replacement: string) => pathOf(url).replace(tokenOf(url), replacement)

/** A GET without any credentials, as a slicer makes it; the body as bytes. */
async function fetchPlain(target: TestVault, path: string, init: RequestInit = {}) {
  const res = await fetch(`${target.baseUrl}${path}`, init)
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) }
}

async function expectRefused(target: TestVault, path: string, status: number, code: string) {
  const res = await fetch(`${target.baseUrl}${path}`)
  const text = await res.text()
  expectProblem({ status: res.status, headers: res.headers, body: JSON.parse(text) }, status, code)
}

beforeAll(async () => {
  vault = await startTestVault(adminEnv)
  token = (await signIn(vault.baseUrl, admin)).access_token
  cube = await uploadFile(vault, token, 'Cube (v2) ünïcode.STL', binaryCube(12))
  project = await uploadFile(vault, token, 'Grid.3mf', gridThreeMf(3))
})

afterAll(async () => {
  await vault?.close()
})

describe('POST /api/v1/files/{id}/download-link', () => {
  it('answers an absolute link ending in a safe file name, valid 15 minutes, and no bearer token in it', async () => {
    const link = await downloadLink(vault, token, cube.id)
    expect(link.url.startsWith(`${vault.baseUrl}/api/v1/signed/files/${cube.id}/`)).toBe(true)
    expect(link.url.endsWith('/Cube_v2_n_code.stl')).toBe(true)
    expect(link.url).not.toContain(token)
    expect(link.expires_in).toBe(900)
    const lifetime = Date.parse(link.expires_at) - Date.now()
    expect(lifetime).toBeGreaterThan(890_000)
    expect(lifetime).toBeLessThanOrEqual(900_000)
  })

  it('wraps the link for the slicers that open the format, each encoding it once', async () => {
    const stl = await downloadLink(vault, token, cube.id)
    const encoded = encodeURIComponent(stl.url)
    expect(stl.slicer_links).toEqual({
      orcaslicer: `orcaslicer://open?file=${encoded}`,
      cura: `cura://open?file=${encoded}`,
      superslicer: `prusaslicer://open?file=${encoded}`,
      elegooslicer: `elegooslicer://open?file=${encoded}`,
      crealityprint: `crealityprintlink://open?file=${encoded}`,
    })
    // Bambu Studio opens only 3MF by URL.
    const threeMf = await downloadLink(vault, token, project.id)
    expect(threeMf.slicer_links.bambustudio).toBe(`bambustudio://open?file=${encodeURIComponent(threeMf.url)}`)
    expect(threeMf.slicer_links.bambustudio_macos).toBe(`bambustudioopen://${encodeURIComponent(threeMf.url)}`)
    expect(threeMf.url.endsWith('/Grid.3mf')).toBe(true)
  })

  it('builds the link on VAULT_PUBLIC_URL when that is set', async () => {
    const behindProxy = await startTestVault({ ...adminEnv, VAULT_PUBLIC_URL: publicUrl })
    try {
      const adminToken = (await signIn(behindProxy.baseUrl, admin)).access_token
      const file = await uploadFile(behindProxy, adminToken, 'cube.stl', binaryCube(5))
      const link = await downloadLink(behindProxy, adminToken, file.id)
      expect(link.url.startsWith(`${publicUrl}/api/v1/signed/files/${file.id}/`)).toBe(true)
    } finally {
      await behindProxy.close()
    }
  })

  it('keeps the mount prefix when the vault is mounted in another app', async () => {
    const mounted = serve({ fetch: new Hono().route('/vault', vault.app).fetch, hostname: '127.0.0.1', port: 0 })
    try {
      await once(mounted, 'listening')
      const origin = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}`
      const reply = await call(origin, 'POST', `/vault/api/v1/files/${cube.id}/download-link`, { token })
      expect(reply.status, JSON.stringify(reply.body)).toBe(200)
      expect(reply.body.url.startsWith(`${origin}/vault/api/v1/signed/files/${cube.id}/`)).toBe(true)
      expect(new Uint8Array(await (await fetch(reply.body.url)).arrayBuffer())).toEqual(cube.bytes)
    } finally {
      await new Promise((resolve) => mounted.close(resolve))
    }
  })

  it('needs a signed-in user and an existing file', async () => {
    const anonymous = await call(vault.baseUrl, 'POST', `/api/v1/files/${cube.id}/download-link`)
    expectProblem(anonymous, 401, 'missing_token')
    const missing = await call(vault.baseUrl, 'POST', '/api/v1/files/no-such-file/download-link', { token })
    expectProblem(missing, 404, 'not_found')
  })
})

describe('GET and HEAD /api/v1/signed/files/{id}/{token}/{name}', () => {
  it('serves the exact bytes without a bearer token, with the headers of the normal download', async () => {
    const link = await downloadLink(vault, token, cube.id)
    const { res, bytes } = await fetchPlain(vault, pathOf(link.url))
    expect(res.status).toBe(200)
    expect(bytes).toEqual(cube.bytes)
    const normal = await fetch(`${vault.baseUrl}/api/v1/files/${cube.id}/content`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    await normal.arrayBuffer()
    for (const header of ['content-type', 'content-length', 'etag', 'accept-ranges', 'content-disposition']) {
      expect(res.headers.get(header), header).toBe(normal.headers.get(header))
    }
  })

  it('serves a Range, answers HEAD with the same headers and no body, and 304 on a matching ETag', async () => {
    const link = await downloadLink(vault, token, cube.id)
    const path = pathOf(link.url)
    const partial = await fetchPlain(vault, path, { headers: { Range: 'bytes=84-183' } })
    expect(partial.res.status).toBe(206)
    expect(partial.res.headers.get('content-range')).toBe(`bytes 84-183/${cube.bytes.length}`)
    expect(partial.bytes).toEqual(cube.bytes.slice(84, 184))

    const head = await fetchPlain(vault, path, { method: 'HEAD' })
    expect(head.res.status).toBe(200)
    expect(head.res.headers.get('content-length')).toBe(String(cube.bytes.length))
    expect(head.bytes.length).toBe(0)

    const etag = head.res.headers.get('etag') ?? ''
    const cached = await fetchPlain(vault, path, { headers: { 'If-None-Match': etag } })
    expect(cached.res.status).toBe(304)
  })

  it('serves only its own file: the token on another file id is refused without reading that file', async () => {
    const link = await downloadLink(vault, token, cube.id)
    const onOther = pathOf(link.url).replace(cube.id, project.id)
    await expectRefused(vault, onOther, 403, 'download_link_other_file')
    // The same answer whether or not the other file exists.
    await expectRefused(vault, pathOf(link.url).replace(cube.id, 'no-such-file'), 403, 'download_link_other_file')
  })

  it("ends a user's file and package links while the user is disabled", async () => {
    const maker = await newAccount(vault.baseUrl, token)
    const fileLink = await downloadLink(vault, maker.token, cube.id)
    const { model_id } = (await call(vault.baseUrl, 'GET', `/api/v1/files/${cube.id}`, { token })).body
    const packageLink = await call(vault.baseUrl, 'POST', `/api/v1/models/${model_id}/package-link`, {
      token: maker.token,
    })
    expect(packageLink.status).toBe(200)
    const links = [pathOf(fileLink.url), pathOf(packageLink.body.url)]
    for (const path of links) expect((await fetchPlain(vault, path)).res.status).toBe(200)

    const disable = (disabled: boolean) =>
      call(vault.baseUrl, 'PATCH', `/api/v1/admin/users/${maker.user.id}`, { token, json: { disabled } })
    expect((await disable(true)).status).toBe(200)
    for (const path of links) await expectRefused(vault, path, 403, 'download_link_revoked')
    // As with API keys, the links of a user enabled again work again until they expire.
    expect((await disable(false)).status).toBe(200)
    for (const path of links) expect((await fetchPlain(vault, path)).res.status).toBe(200)
  })

  it('ignores the name segment, which only tells slicers what to call the file', async () => {
    const link = await downloadLink(vault, token, cube.id)
    const renamed = pathOf(link.url).replace(/[^/]+$/, 'other-name.3mf')
    const { res, bytes } = await fetchPlain(vault, renamed)
    expect(res.status).toBe(200)
    expect(bytes).toEqual(cube.bytes)
  })

  it('refuses tampered, garbage and absent tokens with a problem', async () => {
    const link = await downloadLink(vault, token, cube.id)
    const [header, payload, signature] = tokenOf(link.url).split('.') as [string, string, string]
    const otherFile = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), sub: project.id }),
    ).toString('base64url')
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`
    for (const bad of [
      `${header}.${otherFile}.${signature}`,
      `${header}.${payload}.${flipped}`,
      `${header}.${payload}`,
      'garbage',
      `${header}.${payload}.`,
    ]) {
      await expectRefused(vault, withToken(link.url, bad), 403, 'download_link_invalid')
    }
    await expectRefused(vault, `/api/v1/signed/files/${cube.id}/Cube.stl`, 404, 'not_found')
  })

  it('refuses an access token as a link token, and a link token as a bearer token', async () => {
    const link = await downloadLink(vault, token, cube.id)
    await expectRefused(vault, withToken(link.url, token), 403, 'download_link_invalid')
    expectInvalidToken(await getMe(vault.baseUrl, tokenOf(link.url)))
    const asBearer = await call(vault.baseUrl, 'GET', `/api/v1/files/${cube.id}/content`, { token: tokenOf(link.url) })
    expectInvalidToken(asBearer)
  })

  it('answers 404 once the file is deleted', async () => {
    const doomed = await uploadFile(vault, token, 'doomed.stl', binaryCube(7))
    const link = await downloadLink(vault, token, doomed.id)
    const model = (await call(vault.baseUrl, 'GET', `/api/v1/files/${doomed.id}`, { token })).body.model_id
    expect((await call(vault.baseUrl, 'DELETE', `/api/v1/models/${model}`, { token })).status).toBe(204)
    await expectRefused(vault, pathOf(link.url), 404, 'not_found')
  })

  it('keeps the token out of the request log', async () => {
    const link = await downloadLink(vault, token, cube.id)
    expect((await fetchPlain(vault, pathOf(link.url))).res.status).toBe(200)
    const logged = vault.logs.filter((line) => String(line.path).startsWith(`/api/v1/signed/files/${cube.id}/`))
    expect(logged.length).toBeGreaterThan(0)
    expect(JSON.stringify(vault.logs)).not.toContain(tokenOf(link.url))
  })
})

describe('a link expires', () => {
  it('after VAULT_DOWNLOAD_LINK_TTL_S seconds: 403 download_link_expired', async () => {
    const clock = shiftedClock()
    const shortLived = await startTestVault({ ...adminEnv, VAULT_DOWNLOAD_LINK_TTL_S: '1' }, { clock })
    try {
      const adminToken = (await signIn(shortLived.baseUrl, admin)).access_token
      const file = await uploadFile(shortLived, adminToken, 'brief.stl', binaryCube(3))
      const link = await downloadLink(shortLived, adminToken, file.id)
      expect(link.expires_in).toBe(1)
      expect((await fetchPlain(shortLived, pathOf(link.url))).res.status).toBe(200)
      clock.advance(Date.parse(link.expires_at) - clock.now().getTime() + 1100)
      await expectRefused(shortLived, pathOf(link.url), 403, 'download_link_expired')
    } finally {
      await shortLived.close()
    }
  })
})

describe('signing key rotation', () => {
  it('a link signed before a rotation works while its key is listed, and not once the key is retired', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vault-link-keys-'))
    const keyFile = join(dir, 'jwt-keys')
    const [oldKey, newKey] = ['old-link-signing-key-0123456789abcdefghij', 'new-link-signing-key-0123456789abcdefghij']
    await writeFile(keyFile, `${oldKey}\n`)
    const env = { ...adminEnv, VAULT_JWT_KEY_FILE: keyFile }
    const original = await startTestVault(env)
    const started: TestVault[] = []
    try {
      const adminToken = (await signIn(original.baseUrl, admin)).access_token
      const file = await uploadFile(original, adminToken, 'rotating.stl', binaryCube(4))
      const path = pathOf((await downloadLink(original, adminToken, file.id)).url)

      await writeFile(keyFile, `${newKey}\n${oldKey}\n`)
      const rotated = await startTestVault(env, { shareWith: original })
      started.push(rotated)
      expect((await fetchPlain(rotated, path)).bytes).toEqual(file.bytes)

      await writeFile(keyFile, `${newKey}\n`)
      const retired = await startTestVault(env, { shareWith: original })
      started.push(retired)
      await expectRefused(retired, path, 403, 'download_link_invalid')
    } finally {
      for (const instance of started) await instance.close()
      await original.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
