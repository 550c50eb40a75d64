import { describe, expect, it } from 'vitest'
import { cleanFolder, folderOfPath } from './folders.js'

describe('a folder inside a model', () => {
  it('is kept in one form whatever separators and empty segments it came with', () => {
    expect(cleanFolder('stls/supported')).toBe('stls/supported')
    expect(cleanFolder('\\stls\\supported\\')).toBe('stls/supported')
    expect(cleanFolder('./stls//nested/.')).toBe('stls/nested')
    expect(cleanFolder('')).toBe('')
    expect(cleanFolder('Ünïcode folder/パーツ')).toBe('Ünïcode folder/パーツ')
  })

  it('is refused when it climbs out, holds control characters or is too deep or long', () => {
    expect(cleanFolder('stls/../../etc')).toBeUndefined()
    expect(cleanFolder('..')).toBeUndefined()
    expect(cleanFolder('a\u0000b')).toBeUndefined()
    expect(cleanFolder('line\nbreak')).toBeUndefined()
    expect(cleanFolder(Array.from({ length: 33 }, () => 'd').join('/'))).toBeUndefined()
    expect(cleanFolder('x'.repeat(1_025))).toBeUndefined()
    expect(cleanFolder(Array.from({ length: 32 }, () => 'd').join('/'))).toBe(Array(32).fill('d').join('/'))
  })

  it("comes from a relative path's folder part", () => {
    expect(folderOfPath('stls/nested/tail.stl')).toBe('stls/nested')
    expect(folderOfPath('tail.stl')).toBe('')
    expect(folderOfPath('images\\photo.jpg')).toBe('images')
    expect(folderOfPath('../escape/x.stl')).toBe('')
  })
})
