import { lastBackupHealth } from '../../core/backup/backup-health.js'
import { checkHealth } from '../../core/health/health-report.js'
import { printerFleetHealth } from '../../core/printers/printers.js'
import { createRouter } from '../app-env.js'
import { getHealth } from './health.routes.js'

const componentTimeoutMs = 3000

export const healthRouter = createRouter().openapi(getHealth, async (c) => {
  const { database, blobs, thumbnails, backups, service, clock } = c.var.deps
  const report = await checkHealth(
    {
      database: { required: true, parts: [database] },
      storage: { required: true, parts: [blobs, thumbnails] },
      backup: {
        required: false,
        parts: [backups.local, ...(backups.offsite ? [backups.offsite] : []), lastBackupHealth(c.var.deps)],
      },
      'printer-provider': { required: false, parts: [printerFleetHealth(c.var.deps)] },
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
  c.header('Cache-Control', 'no-store')
  return report.status === 'fail' ? c.json(body, 503) : c.json(body, 200)
})
