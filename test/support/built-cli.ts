import { join } from 'node:path'
import { beforeAll } from 'vitest'
import { ensureBuilt } from './built-vault.js'

let cliPath: string | undefined

/**
 * For a test file that runs the `model-vault` command: the command as users get it, from the build
 * the browser tests share (made once per source state), rather than compiled by tsx at every start
 * (about 2.2 s a start here, against 0.7 s built).
 */
export function setUpBuiltCli(): void {
  beforeAll(async () => {
    cliPath = join(await ensureBuilt(), 'src/cli/cli.js')
  }, 300_000)
}

/** Node's arguments that run the command with `args` (after `setUpBuiltCli`). */
export function cliArgs(...args: string[]): string[] {
  if (!cliPath) throw new Error('call setUpBuiltCli() in the test file first')
  return [cliPath, ...args]
}
