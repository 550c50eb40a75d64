import { createHash } from 'node:crypto'
import { expect } from 'vitest'

/** An HTTP answer with its body parsed (JSON and problem+json), or null when empty. */
export interface Reply {
  status: number
  // biome-ignore lint/suspicious/noExplicitAny: whatever the server sent; tests assert on its shape.
  body: any
  headers: Headers
}

/** The superuser every vault with `adminEnv` starts with. */
export const admin = { username: 'root', password: 'root-password-for-tests' }
export const adminEnv = { VAULT_ADMIN_USERNAME: admin.username, VAULT_ADMIN_PASSWORD: admin.password }

/** Hex SHA-256, computed independently of the vault's own hashing. */
export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex')

export const authHeaders = (token: string) => ({ Authorization: `Bearer ${token}` })

/** `prefix-` plus 8 random hex digits: a username (or key name) no other test uses. */
export const uniqueName = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  /** `json` is sent as `application/json`; `body` is sent as it is, with the caller's headers. */
  options: { token?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...(options.token ? authHeaders(options.token) : {}), ...options.headers }
  if (options.json !== undefined) headers['Content-Type'] = 'application/json'
  const body = options.json !== undefined ? JSON.stringify(options.json) : options.body
  const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })
  // An event stream never ends: its status and headers are the answer.
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await res.body?.cancel()
    return { status: res.status, body: null, headers: res.headers }
  }
  const text = await res.text()
  // Downloads and exports answer bytes, not JSON: their body is left as text.
  const json = /json/.test(res.headers.get('content-type') ?? '')
  return { status: res.status, body: text ? (json ? JSON.parse(text) : text) : null, headers: res.headers }
}

/** An `Authorization` header for `credentials` (the superuser by default), signed in through the in-process app. */
export async function inProcessAuthorization(
  vault: { app: { request(path: string, init: RequestInit): Response | Promise<Response> } },
  credentials: Record<string, unknown> = admin,
): Promise<string> {
  const answer = await vault.app.request('/api/v1/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(credentials),
  })
  return `Bearer ${((await answer.json()) as { access_token: string }).access_token}`
}

export const login = (baseUrl: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call(baseUrl, 'POST', '/api/v1/auth/login', { json: body, headers })

export const refresh = (baseUrl: string, refreshToken: string) =>
  call(baseUrl, 'POST', '/api/v1/auth/refresh', { json: { refresh_token: refreshToken } })

export const getMe = (baseUrl: string, token: string) => call(baseUrl, 'GET', '/api/v1/me', { token })

/** Signs in and returns the token answer; fails the test on anything but 200. */
export async function signIn(baseUrl: string, body: Record<string, unknown>) {
  const reply = await login(baseUrl, body)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as {
    access_token: string
    refresh_token: string
    user: { id: string; username: string; role: string }
  }
}

export async function createUserAs(
  baseUrl: string,
  superToken: string,
  input: { username: string; password: string; role?: string },
) {
  const reply = await call(baseUrl, 'POST', '/api/v1/admin/users', { token: superToken, json: input })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body as { id: string; username: string; role: string }
}

/** A new API key; with every scope (`full`) unless `scopes` are given. */
export async function createApiKeyAs(
  baseUrl: string,
  token: string,
  name = uniqueName('key'),
  scopes: string[] = ['full'],
  expiresAt?: string,
) {
  const json = { name, scopes, ...(expiresAt ? { expires_at: expiresAt } : {}) }
  const reply = await call(baseUrl, 'POST', '/api/v1/api-keys', { token, json })
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body as { id: string; name: string; prefix: string; key: string; scopes: string[] }
}

/** A new user of `role`, signed in once with the password. */
export async function newAccount(baseUrl: string, superToken: string, role = 'user') {
  const username = uniqueName(role)
  const password = `${username}-secret-pw`
  const user = await createUserAs(baseUrl, superToken, { username, password, role })
  const tokens = await signIn(baseUrl, { username, password })
  return { user, username, password, token: tokens.access_token, refreshToken: tokens.refresh_token }
}

/** A new account that also has an API key and a session opened with it. */
export async function newAccountWithKey(baseUrl: string, superToken: string) {
  const account = await newAccount(baseUrl, superToken)
  const key = await createApiKeyAs(baseUrl, account.token)
  const keyed = await signIn(baseUrl, { username: account.username, api_key: key.key })
  return { ...account, key, keyed }
}

/** Asserts a problem+json answer with this status and code, and returns its body. */
export function expectProblem(reply: Reply, status: number, code: string) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.headers.get('content-type')).toBe('application/problem+json')
  expect(reply.body).toMatchObject({ type: 'about:blank', status, code })
  return reply.body
}

/** A 401 `invalid_token` with the RFC 6750 challenge naming the error. */
export function expectInvalidToken(reply: Reply) {
  expectProblem(reply, 401, 'invalid_token')
  expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"')
}

/** Operations of the OctoPrint-compatible shim answer refusals in OctoPrint's shape, `{"error": "…"}`. */
const speaksOctoPrint = (op: Operation) => op.path.startsWith('/octoprint/')

/**
 * Asserts `op`'s refusal with this status and code: a problem for the API, OctoPrint's `{error}`
 * for the shim (whose code shows only in a challenge header).
 */
export function expectRefusal(op: Operation, reply: Reply, status: number, code: string) {
  if (!speaksOctoPrint(op)) return expectProblem(reply, status, code)
  expect(reply.status, `${op.method} ${op.path}: ${JSON.stringify(reply.body)}`).toBe(status)
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/)
  expect(reply.body).toEqual({ error: expect.any(String) })
  return reply.body
}

/** `expectInvalidToken` for any operation, the shim's included. */
export function expectInvalidTokenFrom(op: Operation, reply: Reply) {
  expectRefusal(op, reply, 401, 'invalid_token')
  expect(reply.headers.get('www-authenticate'), `${op.method} ${op.path}`).toContain('error="invalid_token"')
}

/** A problem body without what differs between any two answers (request id, path). */
export const comparable = ({ request_id: _id, instance: _instance, ...rest }: Record<string, unknown>) => rest

export interface Operation {
  method: string
  path: string
  security: unknown[] | undefined
  role: string | undefined
  /** The API key scopes any one of which will do (`full` always does); empty: any scope. */
  scopes: string[] | undefined
}

/** Every operation of the live OpenAPI document. */
export async function listOperations(baseUrl: string): Promise<Operation[]> {
  const document = (await call(baseUrl, 'GET', '/openapi.json')).body
  type Described = { security?: unknown[]; 'x-required-role'?: string; 'x-required-scopes'?: string[] }
  return Object.entries<Record<string, Described>>(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      security: op.security,
      role: op['x-required-role'],
      scopes: op['x-required-scopes'],
    })),
  )
}

/** Calls an operation with a dummy id for each path parameter and `{}` as the body where it takes one. */
export const callOperation = (baseUrl: string, op: Operation, token?: string, headers?: Record<string, string>) =>
  call(baseUrl, op.method, op.path.replace(/\{[^}]+\}/g, 'no-such-id'), {
    token,
    headers,
    ...(['POST', 'PUT', 'PATCH'].includes(op.method) ? { json: {} } : {}),
  })
