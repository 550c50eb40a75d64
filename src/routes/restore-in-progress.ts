import { z } from '@hono/zod-openapi'
import { ProblemSchema } from './problem.js'
import { requestIdHeader, retryAfterHeader } from './response-docs.js'

const RestoreProgressSchema = z
  .object({
    phase: z.enum(['verifying', 'safety_copy', 'swapping', 'finishing']),
    bytes_done: z.number().int().openapi({ description: 'Archive bytes read and checked so far.' }),
    bytes_total: z.number().int().nullable().openapi({ description: 'Bytes of the archive, when known.' }),
  })
  .openapi('RestoreProgress', {
    description: 'Sent as `restore` in the 503 problem every other API request gets while a restore runs.',
  })

const RestoreInProgressSchema = ProblemSchema.extend({ restore: RestoreProgressSchema }).openapi(
  'RestoreInProgressProblem',
)

/** The 503 `restore_in_progress` answer, which the restore gate gives every API operation while a restore runs. */
export const restoreInProgressResponse = (
  description = 'A restore is replacing the data (`restore_in_progress`); nothing of the request was done. `Retry-After` says when to ask again, `restore` shows the progress.',
) => ({
  description,
  headers: { ...requestIdHeader, ...retryAfterHeader },
  content: { 'application/problem+json': { schema: RestoreInProgressSchema } },
})
