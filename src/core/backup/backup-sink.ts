import type { HealthCheckable } from '../health/component.js'

/**
 * A place backup archives are written to: the local backup directory, and optionally an
 * S3-compatible bucket. Health reports whether each one can take a backup right now.
 */
export interface BackupSink extends HealthCheckable {
  /** `local` or `s3`: shown in health and on each backup record. */
  readonly kind: string
}
