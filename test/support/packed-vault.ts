import { execFile } from 'node:child_process'
import { cp, mkdir, rm } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import packageJson from '../../package.json' with { type: 'json' }
import { ensureBuilt } from './built-vault.js'

const run = promisify(execFile)

/**
 * Packs the test build as `npm pack` in a checkout does (package.json, README, dist) into `dir`:
 * the tarball's absolute path, which a fresh app installs as users install the vault.
 */
export async function packVault(dir: string): Promise<string> {
  const stage = join(dir, 'stage')
  await mkdir(stage)
  await cp('package.json', join(stage, 'package.json'))
  await cp('README.md', join(stage, 'README.md'))
  await cp(await ensureBuilt(), join(stage, 'dist'), { recursive: true })
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', resolve(dir)], { cwd: stage })
  await rm(stage, { recursive: true })
  return resolve(dir, `model-vault-${packageJson.version}.tgz`)
}
