import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { problemResponse } from '../problem.js'

const StoreSweepSchema = z.object({
  removed: z.number().int().openapi({ description: 'Unreferenced blobs deleted (in a dry run: that would be).' }),
  removed_bytes: z.number().int(),
  kept_young: z.number().int().openapi({
    description: 'Unreferenced, but written less than `VAULT_GC_GRACE_MINUTES` ago: an upload may be registering it.',
  }),
  kept_for_safety_copy: z.number().int().openapi({
    description:
      'Unreferenced, but stored before a restore whose safety copy (`pre-restore-*.tar.gz`) is still in the backup directory: putting that copy back needs them. They go once the safety copies are deleted.',
  }),
  kept_for_safety_copy_bytes: z.number().int(),
})

const GarbageReportSchema = z
  .object({
    dry_run: z.boolean(),
    completed: z.boolean().openapi({
      description:
        'False when a backup or restore started during the sweep: it stopped there, and the rest waits for the next run.',
    }),
    blobs: StoreSweepSchema.openapi({ description: 'Uploaded files no file row refers to.' }),
    thumbnails: StoreSweepSchema.openapi({ description: 'Thumbnails no file or model refers to.' }),
    staging: z
      .object({ files: z.number().int(), bytes: z.number().int() })
      .openapi({ description: 'Staged uploads of stopped processes removed; none in a dry run.' }),
  })
  .openapi('GarbageReport')

export const collectGarbageRoute = defineRoute(allow('superuser', 'full'), {
  method: 'post',
  path: '/api/v1/maintenance/gc',
  operationId: 'collectGarbage',
  tags: ['Maintenance'],
  summary: 'Delete stored files nothing refers to',
  description: [
    'Deletes blobs no file refers to and thumbnails no file or model refers to: left by uploads whose process was killed',
    'after storing the bytes, by deletions that a crash or a running backup held back, and by restores (which never delete',
    'files). Also removes staged uploads of stopped processes. The service runs the same collection every',
    '`VAULT_GC_INTERVAL_HOURS` (default 24; 0: never on its own); the CLI has `model-vault blobs gc [--dry-run]`.',
    '\n\nSafe beside everything else: blobs written less than `VAULT_GC_GRACE_MINUTES` ago (default 60) are kept, new',
    'file rows wait while each batch is checked and deleted (an upload that still registers bytes deleted meanwhile',
    "answers 409 `content_deleted` and is sent again), no backup or restore may run (409), and blobs a restore's safety",
    'copy may need are kept. `?dry_run=true` counts what would go and deletes nothing. The answer says what was',
    'freed; the same figures are logged. No request body.',
  ].join(' '),
  request: {
    query: z.object({
      dry_run: z
        .enum(['true', 'false'])
        .optional()
        .openapi({ description: 'Count only; delete nothing.', example: 'true' }),
    }),
  },
  responses: {
    200: {
      description: 'Done (or, with `completed: false`, stopped early by a backup or restore).',
      content: { 'application/json': { schema: GarbageReportSchema } },
    },
    409: problemResponse('A backup or restore is running (`maintenance_in_progress`); try again when it has finished.'),
  },
})
