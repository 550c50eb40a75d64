import { describe, expect, it } from 'vitest'
import { keptList } from './kept-lists.js'

describe('keptList', () => {
  it('answers what JSON.parse does, for both databases’ spellings and hostile names', () => {
    for (const text of [
      '[]',
      '["stl"]',
      '["3mf","gcode","stl"]',
      '["a", "b"]',
      '["quo\\"te","back\\\\slash","ünï","a,b","[x]"]',
    ]) {
      expect(keptList(text)).toEqual(JSON.parse(text))
      expect(keptList(text)).toEqual(JSON.parse(text))
    }
  })

  it('hands out a fresh array each time: changing one answer never changes the next', () => {
    const first = keptList('["one","two"]')
    first.push('three')
    first[0] = 'changed'
    expect(keptList('["one","two"]')).toEqual(['one', 'two'])
  })

  it('stays right past the number of lists it keeps', () => {
    for (let i = 0; i < 10_000; i++) expect(keptList(`["tag-${i}"]`)).toEqual([`tag-${i}`])
    expect(keptList('["tag-0"]')).toEqual(['tag-0'])
  })
})
