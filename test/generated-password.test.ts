import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, createUserAs, getMe, signIn, uniqueName } from './support/accounts.js'
import { startTestVault, type TestVault } from './support/test-vault.js'

/** The web UI asks whoever signs in with a password the vault made up to replace it; /me says when. */
describe('a generated password is flagged on /me until its user replaces it', () => {
  let generated: TestVault
  let configured: TestVault

  beforeAll(async () => {
    ;[generated, configured] = await Promise.all([startTestVault(), startTestVault(adminEnv)])
  })
  afterAll(async () => {
    await generated?.close()
    await configured?.close()
  })

  it('the first superuser with a generated password is flagged, and choosing a new one clears it', async () => {
    const password = generated.logs.find((line) => String(line.msg).includes('first superuser'))?.password as string
    const { access_token } = await signIn(generated.baseUrl, { username: 'admin', password })
    expect((await getMe(generated.baseUrl, access_token)).body.password_generated).toBe(true)

    const change = await call(generated.baseUrl, 'POST', '/api/v1/me/password', {
      token: access_token,
      json: { current_password: password, new_password: 'a password the admin chose' },
    })
    expect(change.status).toBe(204)
    expect((await getMe(generated.baseUrl, access_token)).body.password_generated).toBe(false)
  })

  it('a first superuser from VAULT_ADMIN_PASSWORD, and users created with a password, are not flagged', async () => {
    const { access_token } = await signIn(configured.baseUrl, admin)
    expect((await getMe(configured.baseUrl, access_token)).body.password_generated).toBe(false)
    const person = { username: uniqueName('maker'), password: 'chosen by a superuser' }
    await createUserAs(configured.baseUrl, access_token, { ...person, role: 'user' })
    const theirs = await signIn(configured.baseUrl, person)
    expect((await getMe(configured.baseUrl, theirs.access_token)).body.password_generated).toBe(false)
  })
})
