import { spawn } from 'node:child_process'

/**
 * The baseline of the benchmarks that compare the vault with doing nothing: a bare Hono app on
 * @hono/node-server, in a process of its own as the vault is, with one route (`url`) answering a
 * JSON body like `GET /api/v1/me`'s. `pid` is for reading its CPU time.
 */
export async function startBareRoute(): Promise<{ url: string; pid: number; stop(): void }> {
  const program = `
    import { serve } from '@hono/node-server'
    import { Hono } from 'hono'
    const app = new Hono().get('/me', (c) => c.json({ id: '0b9f7c2e-5d1a-4c55-9a43-8f1d2e3c4b5a', username: 'bench', role: 'superuser', created_at: new Date().toISOString(), scopes: null }))
    serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => console.log('listening ' + info.port))`
  const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const port = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the bare route exited (${code})`)))
    child.stdout.on('data', (chunk: Buffer) => {
      const match = /listening (\d+)/.exec(chunk.toString())
      if (match) resolve(match[1]!)
    })
  })
  return { url: `http://127.0.0.1:${port}/me`, pid: child.pid!, stop: () => void child.kill() }
}
