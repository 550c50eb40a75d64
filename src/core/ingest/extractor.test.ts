import { describe, expect, it } from 'vitest'
import type { Extracted } from './extract.js'
import { type ExtractStoredFile, smallFilesInThread } from './extractor.js'

/** An extractor that answers which one it is. */
const named =
  (name: string): ExtractStoredFile =>
  async () =>
    ({ metadata: { by: name }, warnings: [] }) satisfies Extracted

describe('small files read in the thread', () => {
  const extract = smallFilesInThread(named('thread'), named('pool'), 64 * 1024)
  const by = async (...args: Parameters<ExtractStoredFile>) => (await extract(...args)).metadata.by

  it('are meshes and G-code up to the limit, read without rendering', async () => {
    const small = { sha256: 'a'.repeat(64), size: 64 * 1024 }
    for (const format of ['stl', 'obj', 'gcode'] as const)
      expect(await by(format, small, { render: false })).toBe('thread')
  })

  it('leave larger files, archives, CAD, images and every rendering to the pool', async () => {
    const small = { sha256: 'a'.repeat(64), size: 1000 }
    expect(await by('stl', { ...small, size: 64 * 1024 + 1 }, { render: false })).toBe('pool')
    for (const format of ['3mf', 'step', 'image', 'document', 'other'] as const)
      expect(await by(format, small, { render: false })).toBe('pool')
    expect(await by('stl', small, { render: true })).toBe('pool')
  })
})
