import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { admin, adminEnv, call, login } from '../support/accounts.js'
import { backUp } from '../support/backups.js'
import { type S3TestServer, startS3Server } from '../support/s3-server.js'
import { startThrottledProxy, type ThrottledProxy } from '../support/throttled-proxy.js'
import { binaryCube, upload } from '../support/uploads.js'
import { expectAccessible, openVaultPage, screenshot, setUpBrowserSuite, signIn } from '../support/web-ui.js'

const backupDir = mkdtempSync(join(tmpdir(), 'vault-e2e-backups-'))
let s3: S3TestServer
// Between the vault and its backup bucket, so the test decides how long a restore takes.
let link: ThrottledProxy

const suite = setUpBrowserSuite(async () => {
  s3 = await startS3Server()
  link = await startThrottledProxy(Number(new URL(s3.endpoint).port))
  return {
    ...adminEnv,
    VAULT_BACKUP_DIR: backupDir,
    VAULT_BACKUP_S3_ENDPOINT: link.endpoint,
    VAULT_BACKUP_S3_BUCKET: await s3.createBucket(),
    VAULT_BACKUP_S3_ACCESS_KEY_ID: s3.accessKeyId,
    VAULT_BACKUP_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    VAULT_BACKUP_S3_FORCE_PATH_STYLE: 'true',
  }
})

afterAll(async () => {
  await link?.close()
  await s3?.stop()
  rmSync(backupDir, { recursive: true, force: true })
})

/** Resolves once the vault's health answers that a restore is replacing the data. */
async function restoreUnderWay(baseUrl: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const health = await call(baseUrl, 'GET', '/api/v1/health')
    if (health.status === 503 && health.body.code === 'restore_in_progress') return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('the restore never started')
}

describe('the restore banner', () => {
  it('shows a running restore on any page with its progress, and goes when the restore has ended', async () => {
    const { baseUrl } = suite.vault
    const token = (await login(baseUrl, admin)).body.access_token as string
    await upload(baseUrl, token, 'cube.stl', binaryCube(20))
    // Random bytes do not compress: the archive stays big enough to take a while over a slow link.
    const { status } = await upload(baseUrl, token, 'scan.bin', randomBytes(3 * 1024 * 1024))
    expect(status).toBe(201)
    const backup = await backUp(baseUrl, token)
    expect(backup.locations[1]).toMatchObject({ kind: 's3', status: 'uploaded' })
    // Only the bucket holds the archive now: the restore reads it over the slowed link.
    rmSync(join(backupDir, backup.file_name))

    const { page, context, blocked, pageErrors } = await openVaultPage(suite.browser, baseUrl, '/library')
    try {
      await signIn(page, admin)
      await page.getByRole('link', { name: /cube/ }).first().waitFor()
      expect(await page.getByText('The vault is being restored from a backup').count()).toBe(0)

      link.throttle(256 * 1024)
      const restore = call(baseUrl, 'POST', `/api/v1/backups/${backup.id}/restore`, { token })
      await restoreUnderWay(baseUrl)
      // The next call of this tab is refused with 503 restore_in_progress: the banner appears.
      await page.getByRole('link', { name: 'Printers' }).click()
      const banner = page.getByRole('alert').filter({ hasText: 'The vault is being restored from a backup' })
      await banner.waitFor()
      await banner.getByRole('progressbar').waitFor()
      await screenshot(page, 'restore-banner')
      await expectAccessible(page)

      link.release()
      expect((await restore).status).toBe(200)
      await banner.waitFor({ state: 'detached', timeout: 20_000 })
      // The restore ended every session: the page asks to sign in again.
      await page.getByRole('button', { name: 'Sign in' }).waitFor()
      expect(pageErrors).toEqual([])
      expect(blocked).toEqual([])
    } finally {
      link.release()
      await context.close()
    }
  })
})
