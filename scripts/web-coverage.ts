/**
 * The web UI's statement and branch coverage from the Chromium tests: `npm run test:coverage`
 * runs the suite with VAULT_TEST_WEB_COVERAGE=1, so each page writes the V8 coverage of the built
 * UI's scripts to test-results/coverage-web/raw, then this maps it through the build's source maps
 * back to web/src (ast-v8-to-istanbul, as vitest's own V8 coverage does), prints the totals and
 * writes test-results/coverage-web/coverage-summary.json (totals and per file, the form vitest's
 * json-summary has) and coverage-final.json (istanbul's per-line detail).
 *
 * Every script of the build counts, the ones no test loaded at zero; files of web/src the bundler
 * left out of every script are not counted.
 */
import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { basename, join, relative, resolve, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import convert from 'ast-v8-to-istanbul'
import libCoverage from 'istanbul-lib-coverage'
import { parseAstAsync } from 'vite'
import { type RecordedScript, webCoverageBuild, webCoverageRawDir } from '../test/support/web-coverage.js'

const outDir = 'test-results/coverage-web'
const webSrc = resolve('web/src')
/** Left out as `vitest.config.ts` leaves them out: generated types and tests. */
const counted = (path: string) =>
  path.startsWith(`${webSrc}${sep}`) && !path.endsWith('.test.ts') && path !== join(webSrc, 'api', 'schema.ts')

async function recordedScripts(): Promise<RecordedScript[]> {
  const files = (await readdir(webCoverageRawDir).catch(() => [])).filter((file) => file.endsWith('.json'))
  const pages = await Promise.all(
    files.map(async (file) => JSON.parse(await readFile(join(webCoverageRawDir, file), 'utf8')) as RecordedScript[]),
  )
  return pages.flat()
}

/** The newest coverage build holding every script the pages ran (bundle names carry a content hash). */
async function assetsDir(names: Set<string>): Promise<string> {
  const parent = join('test-results', webCoverageBuild)
  const builds = await Promise.all(
    (await readdir(parent).catch(() => [])).map(async (entry) => {
      const assets = join(parent, entry, 'web', 'assets')
      const files = new Set(await readdir(assets).catch(() => []))
      const complete = await stat(join(parent, entry, '.complete')).catch(() => undefined)
      return { assets, files, time: complete?.mtimeMs ?? -1 }
    }),
  )
  const holding = builds
    .filter((build) => build.time >= 0 && [...names].every((name) => build.files.has(name)))
    .sort((a, b) => b.time - a.time)
  if (!holding[0]) throw new Error(`no build under ${parent} holds the scripts the pages ran: ${[...names].join(', ')}`)
  return holding[0].assets
}

const recorded = await recordedScripts()
if (recorded.length === 0) {
  console.error(`No web coverage under ${webCoverageRawDir}: run the browser tests with VAULT_TEST_WEB_COVERAGE=1.`)
  process.exit(1)
}
const byName = new Map<string, RecordedScript[]>()
for (const script of recorded) {
  const name = basename(new URL(script.url).pathname)
  const scripts = byName.get(name) ?? []
  scripts.push(script)
  byName.set(name, scripts)
}
const assets = await assetsDir(new Set(byName.keys()))
const coverage = libCoverage.createCoverageMap({})
for (const name of (await readdir(assets)).filter((file) => file.endsWith('.js'))) {
  const path = resolve(assets, name)
  // The bundler's own runtime has no source map, and nothing of web/src in it.
  const map = await readFile(`${path}.map`, 'utf8').catch(() => undefined)
  if (map === undefined) continue
  const sourceMap = JSON.parse(map)
  const code = await readFile(path, 'utf8')
  const ast = await parseAstAsync(code)
  const url = pathToFileURL(path).href
  // A script no page ran counts in full at zero, and a script some page ran adds nothing to it.
  const unrun = {
    functionName: '',
    isBlockCoverage: true,
    ranges: [{ startOffset: 0, endOffset: code.length, count: 0 }],
  }
  for (const { functions } of [{ functions: [unrun] }, ...(byName.get(name) ?? [])]) {
    const converted = await convert({ code, ast, sourceMap, coverage: { url, functions } })
    for (const [file, data] of Object.entries(converted)) if (counted(file)) coverage.merge({ [file]: data })
  }
}

const total = coverage.getCoverageSummary()
const summary: Record<string, unknown> = { total: total.toJSON() }
for (const file of coverage.files().sort()) summary[file] = coverage.fileCoverageFor(file).toSummary().toJSON()
await writeFile(join(outDir, 'coverage-summary.json'), `${JSON.stringify(summary, null, 2)}\n`)
await writeFile(join(outDir, 'coverage-final.json'), JSON.stringify(coverage.toJSON()))

const line = (name: string, { pct, covered, total }: { pct: number; covered: number; total: number }) =>
  `${name.padEnd(12)}: ${pct}% ( ${covered}/${total} )`
console.log(`web/src in Chromium (${coverage.files().length} files, from ${relative('.', assets)})`)
console.log(line('Statements', total.statements))
console.log(line('Branches', total.branches))
console.log(line('Functions', total.functions))
console.log(line('Lines', total.lines))
