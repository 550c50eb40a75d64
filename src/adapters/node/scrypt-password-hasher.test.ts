import { describe, expect, it } from 'vitest'
import { createScryptPasswordHasher } from './scrypt-password-hasher.js'

describe('scrypt password hasher', () => {
  const hasher = createScryptPasswordHasher()

  it("stores a real install's passwords at OWASP's cost, salted, in PHC format", async () => {
    const encoded = await hasher.hash('correct horse battery')
    expect(encoded).toMatch(/^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(await hasher.hash('correct horse battery')).not.toBe(encoded)
    expect(await hasher.verify('correct horse battery', encoded)).toBe(true)
    expect(await hasher.verify('correct horse batterY', encoded)).toBe(false)
    expect(hasher.needsRehash(encoded)).toBe(false)
  })

  it('verifies a cheaper hash and asks for it to be raised to the current cost', async () => {
    const cheap = await createScryptPasswordHasher({ ln: 10, r: 8, p: 1 }).hash('correct horse battery')
    expect(cheap).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$/)
    expect(await hasher.verify('correct horse battery', cheap)).toBe(true)
    expect(hasher.needsRehash(cheap)).toBe(true)
  })

  it('answers false, without throwing, for malformed hashes and absurd costs', async () => {
    for (const encoded of [
      '',
      'plain',
      '$scrypt$ln=21,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAA',
      '$scrypt$ln=10$x$y',
    ])
      expect(await hasher.verify('correct horse battery', encoded)).toBe(false)
  })
})
