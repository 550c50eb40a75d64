/**
 * Where this process runs and whether another process of the same host still does, so a lock
 * left by a killed process can be taken over at once instead of after its lease. A runtime that
 * cannot tell (Workers) supplies none, and its locks are taken over only once their lease lapses.
 */
export interface ProcessLiveness {
  /**
   * Equal for two processes only when their pids can be compared: the same host, boot and pid
   * namespace (two containers on one host have different ids).
   */
  hostId: string
  pid: number
  /** False only when no process with this pid runs on this host; true when unsure. */
  isRunning(pid: number): boolean
}
