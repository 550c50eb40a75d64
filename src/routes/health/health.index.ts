import { lastBackupHealth } from '../../core/backup/backup-health.js'
import type { HealthCheckable } from '../../core/health/component.js'
import type { ComponentName } from '../../core/health/health-report.js'
import { checkHealth } from '../../core/health/health-report.js'
import { printerFleetHealth } from '../../core/printers/printers.js'
import { type AppDeps, createRouter } from '../app-env.js'
import { unsupportedHealth } from '../unsupported.js'
import { getHealth, getLivez, getReadyz, healthMediaType } from './health.routes.js'

/** How long one component's check may take before it counts as failed. */
export const componentTimeoutMs = 3000

/** Where the runtime bounds backups (Cloudflare Workers), how much one may hold. */
const backupLimitHealth = (bytes: number): HealthCheckable => ({
  checkHealth: async () => ({ status: 'pass', details: { max_backup_bytes: bytes } }),
})

/** The components without which the service cannot serve: the database and the stores. */
export const requiredComponents = ({
  database,
  blobs,
  thumbnails,
}: Pick<AppDeps, 'database' | 'blobs' | 'thumbnails'>) => ({
  database: { required: true, parts: [database] },
  storage: { required: true, parts: [blobs, thumbnails] },
})

export const healthRouter = createRouter()
  .openapi(getLivez, (c) => {
    c.header('Cache-Control', 'no-store')
    return c.text('ok', 200)
  })
  .openapi(getReadyz, async (c) => {
    const report = await checkHealth(requiredComponents(c.var.deps), componentTimeoutMs)
    c.header('Cache-Control', 'no-store')
    const failing = Object.entries(report.components).filter(([, component]) => component.status === 'fail')
    if (failing.length === 0) return c.text('ok', 200)
    const lines = failing.map(
      ([name, component]) => `not ready: ${name}${component.reason ? `: ${component.reason}` : ''}`,
    )
    return c.text(lines.join('\n'), 503)
  })
  .openapi(getHealth, async (c) => {
    const { backups, service, clock, unsupported = [] } = c.var.deps
    // What this runtime cannot do, named in the component it belongs to.
    const limits = (component: ComponentName): HealthCheckable[] => {
      const part = unsupportedHealth(unsupported, component)
      return part ? [part] : []
    }
    const report = await checkHealth(
      {
        ...requiredComponents(c.var.deps),
        backup: {
          required: false,
          parts: [
            backups.local,
            ...(backups.offsite ? [backups.offsite] : []),
            lastBackupHealth(c.var.deps),
            ...limits('backup'),
            ...(backups.limit ? [backupLimitHealth(backups.limit.bytes)] : []),
          ],
        },
        'printer-provider': { required: false, parts: [printerFleetHealth(c.var.deps), ...limits('printer-provider')] },
      },
      componentTimeoutMs,
    )
    const body = {
      status: report.status,
      service: {
        name: service.name,
        version: service.version,
        instance_id: service.instanceId,
        started_at: service.startedAt,
      },
      checked_at: clock.now().toISOString(),
      components: report.components,
    }
    const headers = { 'Cache-Control': 'no-store', 'Content-Type': healthMediaType }
    return report.status === 'fail' ? c.json(body, 503, headers) : c.json(body, 200, headers)
  })
