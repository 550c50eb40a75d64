import type { MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { VaultError } from '../core/errors.js'
import type { AppEnv } from './app-env.js'
import { problemResponse } from './problem.js'

/**
 * Bounds a request body before anything reads it: a declared `Content-Length` over the bound is
 * refused unread; a chunked body is counted as it arrives and refused at the bound. Either way a
 * 413 problem. The bound is `maxBytes` when given, else `VAULT_MAX_BODY_BYTES`.
 */
export function limitBody(maxBytes?: number): MiddlewareHandler<AppEnv> {
  return (c, next) => {
    const maxSize = maxBytes ?? c.var.deps.maxBodyBytes
    return bodyLimit({
      maxSize,
      onError: () => {
        throw new VaultError(
          'payload_too_large',
          `The request body is larger than the limit of ${maxSize} bytes${maxBytes === undefined ? ' (VAULT_MAX_BODY_BYTES)' : ''}.`,
        )
      },
    })(c, next)
  }
}

/** The 413 answer of every operation whose body `limitBody` bounds at `VAULT_MAX_BODY_BYTES`. */
export const bodyTooLargeResponse = problemResponse(
  'The body is larger than `VAULT_MAX_BODY_BYTES` (default 1 MiB; `payload_too_large`). It was not read past the limit, and nothing changed.',
)
