import { mkdir, open, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { BackupSink } from '../../core/backup/backup-sink.js'
import { errorCode } from './fs-blob-store.js'

/** The local backup directory (`VAULT_BACKUP_DIR`). Created on start; healthy while writable. */
export async function createFsBackupSink(dir: string): Promise<BackupSink> {
  await mkdir(dir, { recursive: true })
  return {
    kind: 'local',
    async checkHealth() {
      const probe = join(dir, `.health-${crypto.randomUUID()}`)
      try {
        await (await open(probe, 'w')).close()
        await unlink(probe)
        return { status: 'pass', details: { directory_writable: true } }
      } catch (error) {
        return { status: 'fail', reason: `backup directory is not writable (${errorCode(error)})`, details: { directory_writable: false } }
      }
    },
  }
}
