import { exitWith } from '../adapters/node/node-config.js'
import type { Deps } from '../core/deps.js'
import { collectGarbage, type GarbageReport, type StoreSweep } from '../core/maintenance/collect-garbage.js'

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`

/**
 * `model-vault blobs gc [--dry-run]`: deletes blobs and thumbnails no file or model refers to,
 * and staged uploads of stopped processes, as the scheduled collection does; prints what went.
 */
export async function runBlobsCommand(deps: Deps, options: { dryRun: boolean }): Promise<void> {
  console.log(options.dryRun ? 'Looking for unreferenced blobs (dry run: nothing is deleted)' : 'Collecting garbage')
  const report = await collectGarbage(deps, { dryRun: options.dryRun, graceMs: deps.gcGraceMs }).catch((error: Error) =>
    exitWith(error.message),
  )
  printReport(report, deps.gcGraceMs)
  if (!report.completed) {
    console.log('Stopped early: a backup or restore started. Run again when it has finished.')
    process.exitCode = 1
  }
}

function printReport(report: GarbageReport, graceMs: number): void {
  const verb = report.dry_run ? 'would be removed' : 'removed'
  const line = (name: string, sweep: StoreSweep) =>
    `${name}: ${sweep.removed} unreferenced ${verb} (${mib(sweep.removed_bytes)}); ` +
    `${sweep.kept_young} kept as younger than ${Math.round(graceMs / 60_000)} min; ` +
    `${sweep.kept_for_safety_copy} kept for a restore's safety copy (${mib(sweep.kept_for_safety_copy_bytes)})`
  console.log(line('Blobs', report.blobs))
  console.log(line('Thumbnails', report.thumbnails))
  if (!report.dry_run) {
    console.log(`Staged uploads of stopped processes removed: ${report.staging.files} (${mib(report.staging.bytes)})`)
  }
  if (report.blobs.kept_for_safety_copy + report.thumbnails.kept_for_safety_copy > 0) {
    console.log(
      'Blobs kept for a safety copy go once the pre-restore-*.tar.gz archives in the backup directory are deleted.',
    )
  }
}
