import cliProgress from 'cli-progress'

/** How far an import is: files and bytes done against the total, told to whoever watches. */
export interface ImportProgress {
  advance(bytes: number): void
  stop(): void
}

/** How often a terminal-less run (a log, a pipe, a test) gets a progress line. */
const plainLineEveryMs = 3000

/** `1.2 MB`: decimal units, as file managers show sizes. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`
}

/**
 * A progress bar (files, bytes, rate, time left) when `out` is a terminal; else one plain line
 * every few seconds, which a log keeps readable.
 */
export function startProgress(total: { files: number; bytes: number }, out: NodeJS.WriteStream): ImportProgress {
  const started = performance.now()
  let files = 0
  let bytes = 0
  const figures = () => {
    const seconds = (performance.now() - started) / 1000
    const rate = seconds > 0 ? files / seconds : 0
    const left = rate > 0 ? Math.round((total.files - files) / rate) : undefined
    return {
      bytes: `${formatBytes(bytes)}/${formatBytes(total.bytes)}`,
      rate: `${rate.toFixed(1)} files/s`,
      left: left === undefined ? 'time left unknown' : `about ${left} s left`,
    }
  }
  if (out.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: '{bar} {value}/{total} files | {bytes} | {rate} | {left}', stream: out, hideCursor: true },
      cliProgress.Presets.shades_classic,
    )
    bar.start(total.files, 0, figures())
    return {
      advance(sent) {
        files++
        bytes += sent
        bar.increment(1, figures())
      },
      stop: () => bar.stop(),
    }
  }
  const line = () => {
    const { bytes: sentBytes, rate, left } = figures()
    out.write(`import: ${files}/${total.files} files, ${sentBytes}, ${rate}, ${left}\n`)
  }
  const timer = setInterval(line, plainLineEveryMs)
  return {
    advance(sent) {
      files++
      bytes += sent
    },
    stop: () => clearInterval(timer),
  }
}
