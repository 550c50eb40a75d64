import { execFileSync } from 'node:child_process'

/** PrusaSlicer's shapes gallery as Debian installs it: STLs (box, sphere, bunny, …) with PNG previews. */
export const SHAPES = '/usr/share/PrusaSlicer/shapes'

/**
 * Runs Debian's prusa-slicer with `args` and returns what it printed. Tests that need real
 * slicer output fail loudly (never skip) when it is not installed or refuses the job, with
 * the reason in the error.
 */
export function prusaSlicer(...args: string[]): string {
  try {
    return execFileSync('prusa-slicer', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    throw new Error(
      missing
        ? 'prusa-slicer is not installed; these tests need it: apt-get install -y prusa-slicer'
        : `prusa-slicer failed (${String(error)})`,
    )
  }
}
