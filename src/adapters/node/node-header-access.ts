import type { HttpBindings } from '@hono/node-server'
import type { Context } from 'hono'
import { fetchHeaderAccess, type HeaderAccess } from '../../routes/header-access.js'

/**
 * Headers read from Node's request and written onto Node's response. On @hono/node-server the
 * first `c.req.header()` builds a Fetch API `Headers` of every request header, and one `c.header()`
 * turns the answer's headers into another, which Node then copies out again: the two cost a cheap
 * request (`GET /api/v1/me`) about a tenth of its CPU (docs/benchmarks.md). Here a header is found
 * in the raw list Node parsed, with `Headers.get`'s answer (names matched in any case, repeats joined
 * by ", "), and an answer's header is set on Node's response, which writes it with whatever the app
 * answers. Outside @hono/node-server (`app.request()` in tests) it falls back to the Fetch API.
 */
export const nodeHeaderAccess: HeaderAccess = {
  read(c, name) {
    const { incoming } = nodeBindings(c)
    if (!incoming) return fetchHeaderAccess.read(c, name)
    const raw = incoming.rawHeaders
    let value: string | undefined
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i] ?? ''
      if (key.length !== name.length || key.toLowerCase() !== name) continue
      const found = raw[i + 1] ?? ''
      value = value === undefined ? found : `${value}, ${found}`
    }
    return value
  },
  setOnAnswer(c, name, value) {
    const { outgoing } = nodeBindings(c)
    if (outgoing) outgoing.setHeader(name, value)
    else fetchHeaderAccess.setOnAnswer(c, name, value)
  },
}

/** Node's request and response, when @hono/node-server serves the app (also when a parent app mounts it). */
const nodeBindings = (c: Context): Partial<HttpBindings> => (c.env as Partial<HttpBindings> | undefined) ?? {}
