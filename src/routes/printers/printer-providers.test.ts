import { describe, expect, it } from 'vitest'
import { callApi } from '../../../test/support/in-process-api.js'
import { setUpInProcessSuite } from '../../../test/support/test-vault.js'

const suite = setUpInProcessSuite()

interface Provider {
  name: string
  label: string
  address: { description: string; example: string }
  credentials: {
    type: string
    properties: Record<string, { type: string; title?: string; description?: string; format?: string }>
    required?: string[]
    additionalProperties: boolean
  }
}
interface Problem {
  code: string
  errors: { path: string; message: string }[]
}
interface Printer {
  id: string
  name: string
  provider: string
  has_credentials: boolean
}

const bambuCredentials = { serial: '01S00C123456789', access_code: '12345678' }

describe('the printer providers', () => {
  it("lists each provider this runtime offers, with its address and its credentials' JSON Schema", async () => {
    const listed = await callApi<{ items: Provider[] }>(suite, 'GET', '/api/v1/printer-providers')
    expect(listed.status).toBe(200)
    const byName = new Map(listed.body.items.map((provider) => [provider.name, provider]))
    expect([...byName.keys()]).toEqual(['moonraker', 'octoprint', 'prusalink', 'duet', 'bambu', 'virtual'])

    const bambu = byName.get('bambu')!
    expect(bambu.label).toBe('Bambu Lab (LAN mode)')
    expect(bambu.address.example).toBe('192.168.1.40')
    expect(bambu.credentials.required).toEqual(['serial', 'access_code'])
    expect(bambu.credentials.additionalProperties).toBe(false)
    expect(bambu.credentials.properties.access_code).toMatchObject({ title: 'Access code', format: 'password' })
    expect(bambu.credentials.properties.serial?.format).toBeUndefined()

    const prusalink = byName.get('prusalink')!
    expect(Object.keys(prusalink.credentials.properties)).toEqual(['username', 'password', 'api_key'])
    expect(prusalink.credentials.required ?? []).toEqual([])
    expect(Object.keys(byName.get('virtual')!.credentials.properties)).toEqual([])
  })

  it('refuses a provider it does not offer, naming those it does', async () => {
    const refused = await callApi<Problem>(suite, 'POST', '/api/v1/printers', {
      name: 'Mystery',
      provider: 'constructor',
      address: 'http://192.168.1.9',
    })
    expect(refused.status).toBe(422)
    expect(refused.body.errors).toContainEqual({
      path: 'body.provider',
      message: 'must be one of moonraker, octoprint, prusalink, duet, bambu, virtual',
    })
  })

  it('refuses credentials the provider does not take, and stores nothing', async () => {
    const refused = await callApi<Problem>(suite, 'POST', '/api/v1/printers', {
      name: 'Voron with a serial',
      provider: 'moonraker',
      address: 'http://voron.local:7125',
      credentials: { api_key: 'k', serial: '01S00C123456789' },
    })
    expect(refused.status).toBe(422)
    expect(refused.body.errors).toContainEqual({ path: 'body.credentials', message: 'Unrecognized key: "serial"' })
    const listed = await callApi<{ items: Printer[] }>(suite, 'GET', '/api/v1/printers')
    expect(listed.body.items.map((printer) => printer.name)).not.toContain('Voron with a serial')
  })

  it('asks for what the new provider needs when a printer changes provider, and keeps stored credentials on other changes', async () => {
    const created = await callApi<Printer>(suite, 'POST', '/api/v1/printers', {
      name: 'Switching',
      provider: 'octoprint',
      address: 'http://octopi.local',
      credentials: { api_key: 'octo-key' },
    })
    expect(created.status).toBe(201)
    const path = `/api/v1/printers/${created.body.id}`

    const switched = await callApi<Problem>(suite, 'PATCH', path, { provider: 'bambu', address: '192.168.1.40' })
    expect(switched.status).toBe(422)
    expect(switched.body.errors.map((error) => error.path)).toEqual([
      'body.credentials.serial',
      'body.credentials.access_code',
    ])
    expect((await callApi<Printer>(suite, 'GET', path)).body.provider).toBe('octoprint')

    const withCredentials = await callApi<Printer>(suite, 'PATCH', path, {
      provider: 'bambu',
      address: '192.168.1.40',
      credentials: bambuCredentials,
    })
    expect(withCredentials.status).toBe(200)
    expect(withCredentials.body.provider).toBe('bambu')

    const renamed = await callApi<Printer>(suite, 'PATCH', path, { name: 'Switched' })
    expect(renamed.status).toBe(200)
    expect(renamed.body.has_credentials).toBe(true)
  })
})
