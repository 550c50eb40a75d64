import { describe, expect, it } from 'vitest'
import { createJsonLogger } from '../src/core/runtime/logger.js'

describe('the JSON line logger', () => {
  const logged = (options: Parameters<typeof createJsonLogger>[1] = {}) => {
    const lines: string[] = []
    return { lines, logger: createJsonLogger((line) => lines.push(line), options) }
  }

  it('writes one JSON object a line: time, level and message first, then the fields as given', () => {
    const times = [
      new Date('2026-11-26T10:00:00.000Z'),
      new Date('2026-11-26T10:00:00.000Z'),
      new Date('2026-11-26T10:00:00.001Z'),
    ]
    const { lines, logger } = logged({ now: () => times.shift()! })
    logger.info('request', { request_id: 'a"b', path: '/api/v1/ü\n', status: 200, nothing: undefined })
    logger.warn('plain')
    logger.error('with nothing', {})
    expect(lines.every((line) => line.endsWith('}\n') && !line.slice(0, -1).includes('\n'))).toBe(true)
    expect(lines.map((line) => Object.keys(JSON.parse(line)))).toEqual([
      ['time', 'level', 'msg', 'request_id', 'path', 'status'],
      ['time', 'level', 'msg'],
      ['time', 'level', 'msg'],
    ])
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        time: '2026-11-26T10:00:00.000Z',
        level: 'info',
        msg: 'request',
        request_id: 'a"b',
        path: '/api/v1/ü\n',
        status: 200,
      },
      { time: '2026-11-26T10:00:00.000Z', level: 'warn', msg: 'plain' },
      { time: '2026-11-26T10:00:00.001Z', level: 'error', msg: 'with nothing' },
    ])
  })

  it('leaves out the levels below the one asked for', () => {
    const { lines, logger } = logged({ level: 'warn' })
    logger.debug('a')
    logger.info('b')
    logger.warn('c')
    logger.error('d')
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['c', 'd'])
  })
})
