import type { ChildProcess } from 'node:child_process'

/** Sends SIGTERM to a benchmark's child process and resolves once it has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}
