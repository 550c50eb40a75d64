/**
 * Folder import benchmark: `npx tsx scripts/bench/folder-import.ts [files, default 10000]`
 * (after `npm run build`: the service and the CLI run as built).
 *
 * A folder of small binary STL meshes (about 1 kB each, five per model folder), stored twice,
 * each time into a fresh vault: by `model-vault import` (its default concurrency), then one file
 * at a time by `curl -T` to PUT /api/v1/ingest/{filename}, as a shell loop would. Prints a
 * Markdown table for docs/benchmarks.md.
 */

import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { campaignFile } from '../campaigns/campaign-files.js'
import { seededRandom } from '../seeded-random.js'
import { type BuiltService, startBuiltService } from './built-service.js'

const fileCount = Number(process.argv[2] ?? 10_000)
const filesPerModel = 5
const work = mkdtempSync(join(tmpdir(), 'vault-bench-import-'))
const tree = join(work, 'tree')
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9

/** `Model 00001/part-2.stl`…: distinct meshes (random triangles), so no upload matches another's model. */
function writeTree(): string[] {
  const random = seededRandom(16)
  const paths: string[] = []
  for (let i = 0; i < fileCount; i++) {
    const folder = join(tree, `Model ${String(Math.floor(i / filesPerModel)).padStart(5, '0')}`)
    if (i % filesPerModel === 0) mkdirSync(folder, { recursive: true })
    // Even indices are STL meshes; odd ones would be G-code.
    const file = campaignFile(2 * i, 1_000, random)
    writeFileSync(join(folder, file.name), file.bytes)
    paths.push(join(folder, file.name))
  }
  return paths
}

/** A fresh vault on its own data directory, with an API key of the scopes the import needs. */
async function freshVault(name: string): Promise<{ service: BuiltService; key: string }> {
  const service = await startBuiltService({ VAULT_DATA_DIR: join(work, name) })
  const answer = await fetch(`${service.url}/api/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: service.authorization, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['read', 'upload', 'manage'] }),
  })
  return { service, key: ((await answer.json()) as { key: string }).key }
}

/** Files the vault holds, asked with the key (a sign-in token would expire during a long run) by curl, as a pooled fetch connection may have idled out. */
const filesIn = (service: BuiltService, key: string) => {
  const stats = execFileSync('curl', ['-sf', '-H', `X-Api-Key: ${key}`, `${service.url}/api/v1/models/stats`])
  return (JSON.parse(stats.toString()) as { totals: { files: number } }).totals.files
}

/** Times `upload` into a fresh vault; answers the seconds it took and the files the vault then holds. */
async function timed(name: string, upload: (service: BuiltService, key: string) => Promise<void>) {
  const { service, key } = await freshVault(name)
  try {
    const started = process.hrtime.bigint()
    await upload(service, key)
    return { seconds: seconds(started), stored: filesIn(service, key) }
  } finally {
    service.stop()
  }
}

const importCommand = (service: BuiltService, key: string) =>
  new Promise<void>((resolve, reject) =>
    spawn(process.execPath, ['dist/src/cli/cli.js', 'import', '--state', join(work, 'journal.jsonl'), tree], {
      env: { ...process.env, MODEL_VAULT_URL: service.url, MODEL_VAULT_API_KEY: key },
      stdio: ['ignore', 'ignore', 'inherit'],
    }).on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`model-vault import exited ${code}`)))),
  )

const curlEach = (paths: string[]) => async (service: BuiltService, key: string) => {
  for (const path of paths) {
    const name = encodeURIComponent(path.slice(path.lastIndexOf('/') + 1))
    execFileSync('curl', [
      '-sf',
      '-o',
      '/dev/null',
      '-H',
      `X-Api-Key: ${key}`,
      '-T',
      path,
      `${service.url}/api/v1/ingest/${name}`,
    ])
  }
}

async function main(): Promise<void> {
  const paths = writeTree()
  execFileSync('sync')
  const folders = readdirSync(tree).length
  const imported = await timed('import', importCommand)
  const curled = await timed('curl', curlEach(paths))
  const rate = (run: { seconds: number }) => fileCount / run.seconds
  const row = (label: string, run: { seconds: number; stored: number }) =>
    `| ${label} | ${run.stored.toLocaleString('en')} | ${run.seconds.toFixed(1)} | ${rate(run).toFixed(1)} | ${(rate(run) / rate(curled)).toFixed(2)} |`
  console.log(
    [
      `${fileCount.toLocaleString('en')} files of about 1 kB in ${folders.toLocaleString('en')} model folders, Node ${process.version}, ${new Date().toISOString()}`,
      '',
      '| Upload | files stored | seconds | files/s | × curl |',
      '|---|---:|---:|---:|---:|',
      row('`model-vault import DIR` (concurrency 4)', imported),
      row('`curl -T` per file, one at a time', curled),
    ].join('\n'),
  )
}

try {
  await main()
} finally {
  rmSync(work, { recursive: true, force: true })
}
