import type { RouteConfig } from '@hono/zod-openapi'
import type { MiddlewareHandler } from 'hono'
import { unprocessable } from '../core/errors.js'
import { problemResponse } from './problem.js'

const isJson = (mediaType: string) => /^application\/(?:[\w.+-]+\+)?json$/.test(mediaType)

/**
 * The error answers an operation gives because of the input it declares, documented from the
 * declaration so they cannot be forgotten: a JSON body answers 400 when it does not parse and 415
 * under another `Content-Type` (the validator's media-type gate); any declared path, query,
 * header or body schema answers 422 when the input fails it. A route's own entry for a status wins.
 */
export function inputResponses(request: RouteConfig['request']) {
  const bodyTypes = Object.keys(request?.body?.content ?? {})
  const json = bodyTypes.some(isJson)
  const validated = Boolean(request?.params || request?.query || request?.headers || bodyTypes.length > 0)
  return {
    ...(json
      ? {
          400: problemResponse('The body is not valid JSON (`malformed_json`).'),
          415: problemResponse(
            'The body is not sent as `Content-Type: application/json` (`unsupported_media_type`). Nothing changed.',
          ),
        }
      : {}),
    ...(validated
      ? {
          422: problemResponse(
            'The input does not match the schema (`validation_failed`); `errors` names each field (`body.name`, `path.id`, `query.limit`) and what is wrong with it. Nothing changed.',
          ),
        }
      : {}),
  }
}

const holdsNul = (value: unknown): boolean =>
  typeof value === 'string'
    ? value.includes('\u0000')
    : typeof value === 'object' &&
      value !== null &&
      Object.entries(value).some(([k, v]) => k.includes('\u0000') || holdsNul(v))

/**
 * Refuses a JSON body with a NUL character in any string with 422, before the schema: no field of
 * the API holds one, and PostgreSQL's text cannot store one (the query would fail: a 500).
 */
export const refuseNul: MiddlewareHandler = async (c, next) => {
  if (/json/i.test(c.req.header('content-type') ?? '')) {
    const text = await c.req.text()
    if (text.includes('\\u0000')) {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        // Malformed JSON: the validator answers 400.
      }
      if (holdsNul(parsed))
        throw unprocessable('The body holds a NUL character (\\u0000), which no field accepts.', [
          { path: 'body', message: 'may not hold NUL characters' },
        ])
    }
  }
  await next()
}
