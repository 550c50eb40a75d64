import { describe, expect, it } from 'vitest'
import { linkFileName } from './download-links.js'

describe('linkFileName', () => {
  it.each([
    ['Benchy.3mf', 'Benchy.3mf'],
    ['Benchy v2 (fixed).STL', 'Benchy_v2_fixed_.stl'],
    ['模型.3MF', '_.3mf'],
    ['..', 'file'],
    ['.hidden.obj', 'hidden.obj'],
    ['', 'file'],
    ['no extension', 'no_extension'],
    ['a/b\\c?d#e%f.step', 'a_b_c_d_e_f.step'],
  ])('%j → %j: only characters every URL and file system takes, the extension in lower case', (name, expected) => {
    expect(linkFileName(name)).toBe(expected)
  })
})
