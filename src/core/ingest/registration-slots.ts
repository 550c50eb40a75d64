import { createSemaphore } from '../runtime/semaphore.js'

/**
 * How many uploads are read and registered at once, by size. Reading a large file holds its
 * reader's memory, so only a few run together (the upload burst's memory, docs/reliability.md);
 * a small file's reading holds little, and small files waiting behind those few left the request
 * thread idle during a folder import of small meshes.
 */
export interface RegistrationSlots {
  /** Runs `task`, the registration of a file of `bytes`, once a slot of its size is free. */
  run<T>(bytes: number, task: () => Promise<T>): Promise<T>
  /** Registrations running and waiting, both sizes together (for metrics). */
  load(): { running: number; waiting: number }
}

export function createRegistrationSlots(options: {
  large: number
  small: number
  /** The size up to which a file is small. */
  smallBytes: number
}): RegistrationSlots {
  const large = createSemaphore(options.large)
  const small = createSemaphore(options.small)
  return {
    run: (bytes, task) => (bytes <= options.smallBytes ? small : large).run(task),
    load() {
      const [a, b] = [large.load(), small.load()]
      return { running: a.running + b.running, waiting: a.waiting + b.waiting }
    },
  }
}
