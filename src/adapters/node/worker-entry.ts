import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

/**
 * How to start the worker module `name` (without extension) that sits next to the module at
 * `from` (its `import.meta.url`): the compiled `.js` when running from `dist`. Under tsx or
 * vitest the caller is TypeScript source; Node 20 cannot start a worker from a `.ts` file even
 * with tsx in `execArgv`, so a one-line bootstrap registers tsx's loader, then imports it.
 */
export function workerEntry(name: string, from: string): { source: string | URL; eval: boolean } {
  if (!from.endsWith('.ts')) return { source: new URL(`./${name}.js`, from), eval: false }
  // tsx's ESM entry of its API, by its own exports map (require.resolve would give the CommonJS one).
  const require = createRequire(from)
  const manifest = require('tsx/package.json') as { exports: { './esm/api': { import: { default: string } } } }
  const tsx = new URL(manifest.exports['./esm/api'].import.default, pathToFileURL(require.resolve('tsx/package.json')))
    .href
  const entry = new URL(`./${name}.ts`, from).href
  return {
    source: `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}) })`,
    eval: true,
  }
}
