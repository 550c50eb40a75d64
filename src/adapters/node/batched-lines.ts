/** Text kept before a write even within the delay, so a burst of logging stays bounded. */
const maxPendingChars = 64 * 1024

/** How long a line may wait for others before it is written. */
export const maxLineDelayMs = 50

/**
 * A line writer for the log that writes the lines of up to `maxLineDelayMs` together (one system
 * call instead of one per request line). Writing at the end of each turn of the event loop was
 * still a write, and a wake-up of whatever reads the log, every request or two under load: about a
 * tenth of a cheap request's CPU (measured with scripts/bench/request-overhead.ts). Nothing is lost on exit: what is
 * pending is written synchronously when the process exits (`process.exit`, an uncaught exception,
 * the loop running dry). Only a SIGKILL or a crash of the machine can lose lines, those of the last
 * `maxLineDelayMs`.
 */
export function batchedLines(write: (text: string) => void): (line: string) => void {
  let pending = ''
  let timer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    clearTimeout(timer)
    timer = undefined
    if (pending === '') return
    const text = pending
    pending = ''
    write(text)
  }
  process.on('exit', flush)
  return (line) => {
    pending += line
    if (pending.length >= maxPendingChars) flush()
    // Unreferenced: a pending line never keeps the process alive; the exit handler writes it.
    else timer ??= setTimeout(flush, maxLineDelayMs).unref()
  }
}
