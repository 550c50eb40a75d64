/**
 * Structured logging. Every line is one JSON object with `time`, `level` and `msg`, so log
 * shippers parse it without configuration. Callers never pass secrets in `fields`.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** A logger that writes JSON lines through `write` (stdout on Node, `console.log` elsewhere). */
export function createJsonLogger(
  write: (line: string) => void,
  options: { level?: LogLevel; now?: () => Date } = {},
): Logger {
  const min = rank[options.level ?? 'info']
  const now = options.now ?? (() => new Date())
  // The time's text is made once per millisecond: a busy server writes many lines in each.
  let textMs = Number.NaN
  let text = ''
  const timeText = () => {
    const at = now()
    if (at.getTime() !== textMs) {
      textMs = at.getTime()
      text = at.toISOString()
    }
    return text
  }
  const log = (level: LogLevel) => {
    const head = `","level":"${level}","msg":`
    return (msg: string, fields?: LogFields) => {
      if (rank[level] < min) return
      // The fields' own object is serialized and joined on, rather than copied into one with the
      // time, level and message: a request line is written on every request.
      const rest = fields === undefined ? '{}' : JSON.stringify(fields)
      write(`{"time":"${timeText()}${head}${JSON.stringify(msg)}${rest === '{}' ? '}' : `,${rest.slice(1)}`}\n`)
    }
  }
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
}

/** A logger that adds `fields` to every line (a request's id to the lines of the work it started). */
export function withFields(logger: Logger, fields: LogFields): Logger {
  const add = (write: Logger['info']) => (msg: string, more?: LogFields) =>
    write(msg, more === undefined ? fields : { ...fields, ...more })
  return {
    debug: add(logger.debug),
    info: add(logger.info),
    warn: add(logger.warn),
    error: add(logger.error),
  }
}
