import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it, vi } from 'vitest'
import { batchedLines } from '../src/adapters/node/batched-lines.js'

const run = promisify(execFile)
const module = fileURLToPath(new URL('../src/adapters/node/batched-lines.ts', import.meta.url))

describe('the log line writer', () => {
  it('writes the lines of a burst together, after they were logged', async () => {
    const writes: string[] = []
    const line = batchedLines((text) => writes.push(text))
    line('one\n')
    line('two\n')
    expect(writes).toEqual([])
    await vi.waitFor(() => expect(writes).toEqual(['one\ntwo\n']))
    line('three\n')
    await vi.waitFor(() => expect(writes).toEqual(['one\ntwo\n', 'three\n']))
  })

  it('writes at once when a burst grows large, so what waits stays bounded', () => {
    const writes: string[] = []
    const line = batchedLines((text) => writes.push(text))
    const long = `${'x'.repeat(1023)}\n`
    for (let i = 0; i < 64; i++) line(long)
    expect(writes).toHaveLength(1)
    expect(writes[0]).toHaveLength(64 * 1024)
  })

  // A process that logs and then ends in each way it can: every line still reaches stdout.
  it.each([
    ['process.exit()', 'process.exit(3)', 3],
    ['an uncaught exception', "throw new Error('boom')", 1],
    ['the event loop running dry', '', 0],
  ])('loses no line when the process ends by %s', async (_, ending, code) => {
    const script = `
      const { batchedLines } = await import(${JSON.stringify(module)})
      const line = batchedLines((text) => process.stdout.write(text))
      for (let i = 0; i < 3; i++) line('line ' + i + '\\n')
      ${ending}`
    const outcome = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]).then(
      ({ stdout }) => ({ stdout, code: 0 }),
      (error: { stdout: string; code: number }) => ({ stdout: error.stdout, code: error.code }),
    )
    expect(outcome).toEqual({ stdout: 'line 0\nline 1\nline 2\n', code })
  })
})
