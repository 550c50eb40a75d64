import { readFileSync, readlinkSync } from 'node:fs'
import { hostname } from 'node:os'
import type { ProcessLiveness } from '../../core/runtime/process-liveness.js'

/**
 * This process's liveness port: the host id joins the host name, the kernel's boot id and the
 * pid namespace (on Linux), so a pid is only compared with pids of the same namespace of the same
 * boot; elsewhere the host name alone. `isRunning` sends signal 0, which checks without signalling:
 * ESRCH means gone, EPERM means alive under another user.
 */
export function createNodeProcessLiveness(): ProcessLiveness {
  const bootId = readOrEmpty(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim())
  const pidNamespace = readOrEmpty(() => readlinkSync('/proc/self/ns/pid'))
  return {
    hostId: [hostname(), bootId, pidNamespace].join('/'),
    pid: process.pid,
    isRunning(pid) {
      try {
        process.kill(pid, 0)
        return true
      } catch (error) {
        return (error as NodeJS.ErrnoException).code !== 'ESRCH'
      }
    },
  }
}

function readOrEmpty(read: () => string): string {
  try {
    return read()
  } catch {
    return ''
  }
}
