import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface SmallFilesystem {
  dir: string
  /** Writes a file of zeros until the filesystem is full (ENOSPC); returns its path. */
  fill(): string
  unmount(): void
}

/** Runs a command as root: directly when this process is root, else through `sudo -n`. */
function asRoot(command: string, args: string[]) {
  if (process.getuid?.() === 0) execFileSync(command, args)
  else execFileSync('sudo', ['-n', command, ...args])
}

/**
 * A real filesystem of `mib` MiB (a tmpfs), so a full disk is the kernel's own ENOSPC. Needs
 * root, or password-less sudo (CI has both); fails loudly otherwise rather than skipping.
 */
export function mountSmallFilesystem(mib: number): SmallFilesystem {
  const dir = mkdtempSync(join(tmpdir(), 'vault-small-fs-'))
  try {
    asRoot('mount', ['-t', 'tmpfs', '-o', `size=${mib}m,mode=1777`, 'tmpfs', dir])
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`The full-disk tests mount a ${mib} MiB tmpfs and need root or sudo for it: ${error}`)
  }
  return {
    dir,
    fill() {
      const path = join(dir, `filler-${crypto.randomUUID()}`)
      const block = new Uint8Array(64 * 1024)
      try {
        for (;;) writeFileSync(path, block, { flag: 'a' })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      }
      return path
    },
    unmount() {
      asRoot('umount', ['-l', dir])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
