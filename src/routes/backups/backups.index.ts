import { getBackup, listBackups } from '../../core/backup/backup-records.js'
import { startBackup } from '../../core/backup/create-backup.js'
import { restoreBackup } from '../../core/backup/restore-backup.js'
import { createRouter } from '../app-env.js'
import { apiBase } from '../library-schemas.js'
import { createBackupRoute, getBackupRoute, listBackupsRoute, restoreBackupRoute } from './backups.routes.js'

export const backupsRouter = createRouter()
  .openapi(createBackupRoute, async (c) => {
    const { record, done } = await startBackup(c.var.deps, c.var.principal.userId)
    c.var.deps.waitUntil?.(c, done)
    return c.json(record, 202, { Location: `${apiBase(c)}/backups/${record.id}` })
  })
  .openapi(listBackupsRoute, async (c) => {
    const { local, offsite, retentionDays } = c.var.deps.backups
    const destination = { directory: local.location, bucket: offsite?.location ?? null, retention_days: retentionDays }
    return c.json({ items: await listBackups(c.var.deps.database.db), destination }, 200)
  })
  .openapi(getBackupRoute, async (c) => {
    const { id } = c.req.valid('param')
    return c.json(await getBackup(c.var.deps.database.db, id), 200)
  })
  .openapi(restoreBackupRoute, async (c) => {
    const { backup_id } = c.req.valid('param')
    const result = await c.var.restoreGate.run((report) => restoreBackup(c.var.deps, backup_id, report))
    return c.json(result, 200)
  })
