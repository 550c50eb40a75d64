import react from '@vitejs/plugin-react'
import postcssPresetMantine from 'postcss-preset-mantine'
import postcssSimpleVars from 'postcss-simple-vars'
import { defineConfig } from 'vite'
import { precompress } from './precompress-plugin'

/**
 * The web UI. `base: './'` keeps every asset URL relative, so the same build works at `/`, under a
 * mount prefix and behind `VAULT_PUBLIC_URL`: the server writes the real `<base href>` into index.html.
 * In development (`npx vite web`) the API calls go to a vault on VAULT_DEV_API (default :8080).
 */
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [react(), precompress()],
  css: {
    postcss: {
      // Mantine's mixins and breakpoint variables, for CSS modules that follow its breakpoints.
      plugins: [
        postcssPresetMantine(),
        postcssSimpleVars({
          variables: {
            'mantine-breakpoint-xs': '36em',
            'mantine-breakpoint-sm': '48em',
            'mantine-breakpoint-md': '62em',
            'mantine-breakpoint-lg': '75em',
            'mantine-breakpoint-xl': '88em',
          },
        }),
      ],
    },
  },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    // Everything the first page needs in one chunk: split into the two dozen shared chunks the
    // bundler makes by default, it queued on the browser's six HTTP/1.1 connections, and the session
    // refresh and the first list call waited behind it (docs/benchmarks.md, first model cards).
    // The other pages, three.js and the charts still load on demand.
    rolldownOptions: { output: { codeSplitting: { groups: [{ name: 'initial', tags: ['$initial'] }] } } },
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/docs', '/redoc', '/openapi.json'].map((path) => [
        path,
        process.env.VAULT_DEV_API ?? 'http://127.0.0.1:8080',
      ]),
    ),
  },
})
