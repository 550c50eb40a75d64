import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { base64url } from 'jose'
import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from './cursor.js'

const keyA = new TextEncoder().encode('a signing secret of the vault, A')
const keyB = new TextEncoder().encode('a signing secret of the vault, B')
const scope = '["updated","desc",[],[],null,[],null,null,null,null,null]'
const position = { value: '2026-11-19T23:39:32.300Z', id: 'dbf99d71-d935-43d1-89da-7a3c01d383bf' }

describe('paging cursors', () => {
  it('carry the HMAC-SHA-256 of scope and payload under the key, the same on every use of the kept keyed MAC', () => {
    const first = encodeCursor(keyA, scope, position)
    const [payload] = first.split('.')
    const expected = hmac(sha256, keyA, new TextEncoder().encode(`model-vault cursor v1\n${scope}\n${payload}`))
    expect(first).toBe(`${payload}.${base64url.encode(expected.slice(0, 16))}`)
    expect(encodeCursor(keyA, scope, position)).toBe(first)
    expect(decodeCursor(keyA, scope, first)).toEqual(position)
  })

  it('made under one key are refused under another, whichever was used first', () => {
    const underA = encodeCursor(keyA, scope, position)
    const underB = encodeCursor(keyB, scope, position)
    expect(underB).not.toBe(underA)
    expect(() => decodeCursor(keyB, scope, underA)).toThrow(/altered/)
    expect(() => decodeCursor(keyA, scope, underB)).toThrow(/altered/)
    expect(decodeCursor(keyB, scope, underB)).toEqual(position)
  })
})
