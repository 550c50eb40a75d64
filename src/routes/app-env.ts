import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { Principal } from '../core/accounts/principal.js'
import type { Deps } from '../core/deps.js'
import { withFields } from '../core/runtime/logger.js'
import type { RestoreGate } from './backups/restore-gate.js'
import type { HeaderAccess } from './header-access.js'
import { validationHook } from './problem.js'
import type { UnsupportedOperation } from './unsupported.js'

/**
 * The caller's address for login throttling: the socket's peer, or the proxy's
 * `X-Forwarded-For` entry when `VAULT_TRUST_PROXY` is on. Undefined when unknown.
 */
export type GetClientAddress = (c: Context) => string | undefined

/**
 * What `createApp` takes: the core deps plus the adapters only the HTTP layer uses, so core
 * never sees Hono's `Context`.
 */
export interface AppDeps extends Deps {
  getClientAddress: GetClientAddress
  /** Origins whose pages may call the API from the browser (`VAULT_CORS_ORIGINS`); absent or empty: none. */
  corsOrigins?: readonly string[]
  /** The bearer token `/metrics` asks for (`VAULT_METRICS_TOKEN`); absent: no `/metrics`. */
  metricsToken?: string
  /** How request headers are read and answer headers set: `fetchHeaderAccess`, or the runtime's cheaper way. */
  headerAccess: HeaderAccess
  /**
   * What this runtime cannot do (Cloudflare Workers: printers, backups): each answers 501 with its
   * reason and shows in health. Absent on Node, which does everything.
   */
  unsupported?: readonly UnsupportedOperation[]
  /**
   * Keeps `work` (a backup started by a request) running after the answer has gone: Cloudflare
   * Workers' `ctx.waitUntil`. Absent on Node, whose process outlives its requests.
   */
  waitUntil?: (c: Context, work: Promise<unknown>) => void
}

/** The Hono environment every route sees: injected deps, the request id and the restore gate. */
export interface AppEnv {
  Variables: {
    deps: AppDeps
    requestId: string
    /** Closes this app to other requests while a restore runs in it or in another process of the install. */
    restoreGate: RestoreGate
    /** The signed-in caller; set by `requireRole` on protected routes only. */
    principal: Principal
  }
}

/** A router whose validation failures all answer the same 422 problem. */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
}

/** The deps with a logger whose lines carry this request's id: for work a request starts in core. */
export function requestDeps(c: Context<AppEnv>): AppDeps {
  const { deps, requestId } = c.var
  return { ...deps, logger: withFields(deps.logger, { request_id: requestId }) }
}
