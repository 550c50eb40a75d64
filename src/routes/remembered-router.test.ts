import { TrieRouter } from 'hono/router/trie-router'
import { describe, expect, it } from 'vitest'
import { rememberedTrieRouter } from './remembered-router.js'

/** Routes shaped like the vault's: middleware on a prefix, a static and a parameter route side by side. */
const routes: [string, string][] = [
  ['ALL', '/api/*'],
  ['GET', '/api/v1/models/stats'],
  ['GET', '/api/v1/models/:id'],
  ['GET', '/api/v1/models/:id/files/:fileId'],
  ['POST', '/api/v1/models'],
]
const paths = ['/api/v1/models/stats', '/api/v1/models/m1', '/api/v1/models/m2', '/api/v1/models/m1/files/f9', '/nope']

/** What a match says: each handler's name with its parameters. */
const described = (result: ReturnType<TrieRouter<string>['match']>) =>
  result[0].map(([handler, params]) => [handler, { ...(params as Record<string, string>) }])

describe('the remembered trie router', () => {
  it("answers as Hono's TrieRouter does, the first time and every time after", () => {
    const trie = new TrieRouter<string>()
    const remembered = rememberedTrieRouter<string>()
    for (const [method, path] of routes) {
      trie.add(method, path, `${method} ${path}`)
      remembered.add(method, path, `${method} ${path}`)
    }
    for (let round = 0; round < 2; round++) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        for (const path of paths)
          expect(described(remembered.match(method, path))).toEqual(described(trie.match(method, path)))
      }
    }
    expect(described(remembered.match('GET', '/api/v1/models/m2'))).toEqual([
      ['ALL /api/*', {}],
      ['GET /api/v1/models/:id', { id: 'm2' }],
    ])
  })

  it('a route added after a path was matched is found on that path', () => {
    const router = rememberedTrieRouter<string>()
    router.add('ALL', '/api/*', 'all')
    expect(described(router.match('GET', '/api/v1/late'))).toEqual([['all', {}]])
    router.add('GET', '/api/v1/late', 'late')
    expect(described(router.match('GET', '/api/v1/late'))).toEqual([
      ['all', {}],
      ['late', {}],
    ])
  })

  it('keeps answering rightly past the number of paths it remembers, and for paths too long to remember', () => {
    const router = rememberedTrieRouter<string>()
    router.add('GET', '/m/:id', 'model')
    const long = `/m/${'x'.repeat(300)}`
    for (let i = 0; i < 10_000; i++)
      expect(described(router.match('GET', `/m/${i}`))).toEqual([['model', { id: String(i) }]])
    expect(described(router.match('GET', '/m/0'))).toEqual([['model', { id: '0' }]])
    expect(described(router.match('GET', long))).toEqual([['model', { id: 'x'.repeat(300) }]])
  })
})
