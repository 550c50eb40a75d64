/** Lines kept before a write even within one turn of the event loop, so a burst of logging stays bounded. */
const maxPendingLines = 512

/**
 * A line writer for the log that writes together the lines of one turn of the event loop (one
 * system call instead of one per request line), at the end of that turn. Nothing is lost on exit:
 * what is pending is written synchronously when the process exits (`process.exit`, an uncaught
 * exception, the loop running dry). Only a SIGKILL can lose lines, those of the current turn.
 */
export function batchedLines(write: (text: string) => void): (line: string) => void {
  let pending: string[] = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending.join('')
    pending = []
    write(text)
  }
  process.on('exit', flush)
  return (line) => {
    pending.push(line)
    if (pending.length >= maxPendingLines) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}
