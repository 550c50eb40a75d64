/**
 * The health of one component as reported by `GET /api/v1/health`.
 * `pass`: ready; `warn`: working but needs attention; `fail`: not working.
 * `reason` says why in a short sentence and never carries secrets or paths.
 */
export type HealthStatus = 'pass' | 'warn' | 'fail'

export interface ComponentHealth {
  status: HealthStatus
  reason?: string
  /** Small, non-secret facts about the component (kind, counts, versions). */
  details?: Record<string, string | number | boolean | null>
}

/** Anything that can report its own health: database, blob stores, backup sinks, printers. */
export interface HealthCheckable {
  checkHealth(): Promise<ComponentHealth>
}
