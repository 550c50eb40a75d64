/**
 * The benchmarks' baseline: a bare Hono app on @hono/node-server, in a process of its own as the
 * vault is, answering fixed JSON bodies shaped like the vault's: `/me` (the fields and nesting of
 * `GET /api/v1/me`'s answer, about as long) and `/page` (50 model summaries with every field `GET /api/v1/models` gives,
 * about as long). No database, authentication, validation or logging: what is left of a request
 * is the HTTP server, Hono's routing and the JSON. `npx tsx scripts/bench/bare-route.ts` serves
 * it on a free port and prints `listening <url>`.
 */

import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { stopChild } from './stop-child.js'

export interface BareRoutes {
  /** Base URL: `${url}/me`, `${url}/page`. */
  url: string
  pid: number
  stop(): Promise<void>
}

/** Starts the bare routes in a child process. */
export async function startBareRoutes(): Promise<BareRoutes> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bare routes exited (${code}) before listening: ${out}`)))
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /^listening (\S+)$/m.exec(out)
      if (match) resolve(match[1]!)
    })
  })
  return { url, pid: child.pid!, stop: () => stopChild(child) }
}

function serveBareRoutes(): void {
  const page = Array.from({ length: 50 }, (_, i) => {
    const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
    return {
      id,
      name: `Model ${i}`,
      description: 'A fixed item of the baseline page, about as long as a generated description is.',
      has_thumbnail: true,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-02T00:00:00.000Z',
      url: `/api/v1/models/${id}`,
      thumbnail_url: `/api/v1/models/${id}/thumbnail`,
      tags: ['functional', 'calibration'],
      file_summary: { count: 3, formats: ['3mf', 'gcode', 'stl'], total_size: 12_345_678 },
    }
  })
  const app = new Hono()
    .get('/me', (c) =>
      c.json({
        user: {
          id: '0b9f7c2e-5d1a-4c55-9a43-8f1d2e3c4b5a',
          username: 'bench',
          role: 'superuser',
          disabled: false,
          created_at: new Date().toISOString(),
          updated_at: '2026-01-02T00:00:00.000Z',
        },
        session_id: '5d0c1a7e-8f3b-4e2a-9c6d-1b2a3c4d5e6f',
        api_key_id: null,
        scopes: ['full'],
        password_generated: false,
      }),
    )
    .get('/page', (c) => c.json({ items: page, next_cursor: null }))
  serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
    console.log(`listening http://127.0.0.1:${info.port}`),
  )
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serveBareRoutes()
