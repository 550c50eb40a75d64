import { type RouteConfig, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { VaultError } from '../../core/errors.js'
import { closeIfBodyUnread, validationFailure } from '../problem.js'

export const OctoPrintErrorSchema = z
  .object({ error: z.string().openapi({ example: 'Voron is not ready: it is printing. Nothing was sent.' }) })
  .openapi('OctoPrintError')

/**
 * A refusal as OctoPrint words it: the status, and `{"error": "…"}`. PrusaSlicer, SuperSlicer,
 * OrcaSlicer and Bambu Studio show `HTTP <status>: <body>` to the user, so the text says what
 * happened and what to do. Anything but a domain error goes on to the root handler (a logged 500).
 */
export function answerOctoPrintError(error: Error, c: Context): Response {
  if (!(error instanceof VaultError)) throw error
  return closeIfBodyUnread(c, c.json({ error: error.message }, error.status as ContentfulStatusCode, error.headers))
}

/** Input that fails a route's schema: the same 422 as everywhere, in OctoPrint's shape. */
export function octoPrintValidationHook(
  result: { success: true } | { success: false; error: z.ZodError; target: string },
) {
  if (!result.success) throw validationFailure(result.error, result.target)
}

/** A path under a shim base that the shim does not serve (OctoPrint's job, printer and file-list APIs). */
export const octoPrintNotFound = (c: Context) =>
  closeIfBodyUnread(
    c,
    c.json(
      {
        error: `${c.req.method} ${c.req.path} is not part of the vault's OctoPrint compatibility, which serves GET api/version, api/server, api/settings and POST api/files/local.`,
      },
      404,
    ),
  )

const octoPrintErrorContent = { 'application/json': { schema: OctoPrintErrorSchema } }

/** A route whose documented problem answers (401, 403, 422 …) are documented in OctoPrint's error shape instead. */
export function withOctoPrintErrors<R extends RouteConfig>(route: R): R {
  const responses = Object.fromEntries(
    Object.entries(route.responses).map(([status, response]) => [
      status,
      'content' in response && response.content && 'application/problem+json' in response.content
        ? { ...response, content: octoPrintErrorContent }
        : response,
    ]),
  )
  return { ...route, responses }
}
