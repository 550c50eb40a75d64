import type { InProcessVault } from './test-vault.js'

/** A suite's vault and the Authorization header of its admin (see `setUpInProcessSuite`). */
interface Suite {
  vault: InProcessVault
  authorization: string
}

/** `POST /api/v1/ingest` in-process, `fields` sent before the file as a browser's FormData sends them. */
export async function postUpload<T>(
  suite: Suite,
  filename: string,
  bytes: Uint8Array,
  fields: Record<string, string> = {},
) {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.append(name, value)
  form.append('file', new Blob([new Uint8Array(bytes)]), filename)
  const answer = await suite.vault.app.request('/api/v1/ingest', {
    method: 'POST',
    headers: { Authorization: suite.authorization },
    body: form,
  })
  return { status: answer.status, body: (await answer.json()) as T }
}

/** `PUT /api/v1/ingest/{filename}?{query}` in-process, the bytes as the body. */
export async function putUpload<T>(suite: Suite, filename: string, bytes: Uint8Array, query: string) {
  const answer = await suite.vault.app.request(`/api/v1/ingest/${filename}?${query}`, {
    method: 'PUT',
    headers: { Authorization: suite.authorization, 'Content-Length': String(bytes.byteLength) },
    body: new Uint8Array(bytes),
  })
  return { status: answer.status, body: (await answer.json()) as T }
}

/** How many rows `table` has now. */
export async function rowCount(suite: Suite, table: 'models' | 'files'): Promise<number> {
  const row = await suite.vault.deps.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst()
  return Number(row?.n)
}

/** A JSON request to the suite's vault as its admin; the answer's status and parsed body (null when empty). */
export async function callApi<T>(suite: Suite, method: string, path: string, body?: unknown) {
  const answer = await suite.vault.app.request(path, {
    method,
    headers: {
      Authorization: suite.authorization,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await answer.text()
  return { status: answer.status, body: (text ? JSON.parse(text) : null) as T }
}
