import type { RouteConfig } from '@hono/zod-openapi'
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
