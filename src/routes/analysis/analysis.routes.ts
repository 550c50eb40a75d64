import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { problemResponse } from '../problem.js'

const AnalysisFailureSchema = z
  .object({
    sha256: z.string().openapi({ description: 'The content whose rendering failed.' }),
    reason: z.string().openapi({
      description: 'Why, as a sentence.',
      example: 'No thumbnail: the image cannot be decoded (invalid PNG signature).',
    }),
    failed_at: z.string().openapi({ format: 'date-time' }),
    attempts: z.number().int().openapi({ description: 'Times it was taken up.' }),
    files: z
      .array(z.object({ id: z.string(), name: z.string(), model_id: z.string() }))
      .openapi({ description: 'The files holding this content, oldest first.' }),
  })
  .openapi('AnalysisFailure')

const AnalysisStatusSchema = z
  .object({
    queued: z.number().int().openapi({ description: 'Contents waiting to be rendered.' }),
    running: z
      .number()
      .int()
      .openapi({ description: 'Being rendered now, by this or another process of the install.' }),
    failed: z.number().int().openapi({ description: 'Failed, with a reason, until retried.' }),
    rate_per_second: z
      .number()
      .openapi({ description: 'Contents finished per second over the last minute; 0 when none.', example: 41.5 }),
    seconds_left: z.number().int().nullable().openapi({
      description: 'At that rate, until nothing waits; null when nothing waits or nothing finished in the last minute.',
      example: 120,
    }),
    failures: z.array(AnalysisFailureSchema).openapi({ description: 'The 100 most recent failures, newest first.' }),
  })
  .openapi('AnalysisStatus')

export const analysisStatusRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/analysis',
  operationId: 'getAnalysisStatus',
  tags: ['Analysis'],
  summary: 'How the background analysis stands',
  description: [
    'An upload answers once its bytes are stored and its figures, metadata and model are known. The costly part, rendering',
    "a mesh's thumbnail, simplifying a large mesh's preview and scaling a large image down, is queued and done in the",
    'background, on the same bounded pool of reader threads, a reading for an upload always going first. The queue is kept',
    'in the database: it survives restarts and crashes (a job whose process stopped is taken up again once its lease',
    'lapses, and fails after 3 such tries), and the processes of an install sharing one database each take their own',
    "jobs. Until its files are rendered, a model's `analysing_files` counts them. This answers the queue's depth, its",
    'rate and the time left, and the failures with their reasons.',
  ].join(' '),
  responses: {
    200: { description: 'The queue.', content: { 'application/json': { schema: AnalysisStatusSchema } } },
  },
})

export const retryAnalysisRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/analysis/retry',
  operationId: 'retryAnalysis',
  tags: ['Analysis'],
  summary: 'Queue failed analyses again',
  description:
    'Queues every failed content again, or only the one named by `sha256`. Answers how many were queued; 0 when none had failed.',
  request: {
    body: {
      required: false,
      content: {
        'application/json': {
          schema: z.object({
            sha256: z
              .string()
              .regex(/^[0-9a-f]{64}$/, 'is not a SHA-256 in lower-case hex')
              .optional()
              .openapi({
                description: 'The failed content to retry; absent: all of them.',
                example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
              }),
          }),
        },
      },
    },
  },
  responses: {
    200: {
      description: 'Queued again.',
      content: { 'application/json': { schema: z.object({ retried: z.number().int() }).openapi('AnalysisRetried') } },
    },
    422: problemResponse('The body is not valid.'),
  },
})
