import type { HealthCheckable } from '../health/component.js'

/**
 * A place backup archives are kept: the local backup directory, and optionally an
 * S3-compatible bucket (possibly at another provider than the vault's storage).
 */
export interface BackupSink extends HealthCheckable {
  /** `local` or `s3`: shown in health and on each backup record. */
  readonly kind: string
  /** Where the archives go, for admins to review: the directory's path, or `s3://<bucket>/<prefix>`. */
  readonly location: string
  /**
   * Streams an archive in under `name`. Nothing is visible under that name until the whole
   * stream has been written (a temporary name and a rename; or a completed multipart upload).
   */
  write(name: string, body: ReadableStream<Uint8Array>): Promise<void>
  /** The archive, or null when the sink has none by that name. */
  read(name: string): Promise<ReadableStream<Uint8Array> | null>
  /** Every archive kept here, with its size and when it was written. */
  list(): Promise<{ name: string; size: number; modifiedAt: Date }[]>
  /** Removes an archive; an absent one is not an error. */
  delete(name: string): Promise<void>
}
