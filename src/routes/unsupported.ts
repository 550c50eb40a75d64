import type { Handler } from 'hono'
import { VaultError } from '../core/errors.js'
import type { HealthCheckable } from '../core/health/component.js'
import type { ComponentName } from '../core/health/health-report.js'

/**
 * An operation the runtime cannot perform, such as registering a printer on a LAN from Cloudflare's
 * edge: it answers 501 `not_supported_on_this_runtime` with `reason` before any handler reads the
 * request, and the health report's `component` carries the reason (as a `warn`).
 */
export interface UnsupportedOperation {
  /** Upper-case HTTP methods. */
  methods: string[]
  /** A Hono path pattern inside the vault app (`/api/v1/backups/:id/restore`, `/octoprint/printers/*`). */
  path: string
  component: ComponentName
  /** What cannot work here, why, and what to do instead; shown to clients and in health. */
  reason: string
}

/** The handler registered, before every route, for one unsupported operation. */
export const refuseUnsupported =
  (operation: UnsupportedOperation): Handler =>
  () => {
    throw new VaultError('not_supported_on_this_runtime', operation.reason)
  }

/** The health part that names what `component` cannot do on this runtime; null when it can do everything. */
export function unsupportedHealth(
  operations: readonly UnsupportedOperation[],
  component: ComponentName,
): HealthCheckable | null {
  const reasons = [...new Set(operations.filter((o) => o.component === component).map((o) => o.reason))]
  if (reasons.length === 0) return null
  return {
    checkHealth: async () => ({ status: 'warn', reason: reasons.join(' '), details: { supported_here: false } }),
  }
}
