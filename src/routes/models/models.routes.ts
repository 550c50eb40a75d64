import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { modelDetailExample, modelPageExample } from '../answer-examples.js'
import { IdParamSchema, idField, matching } from '../common-schemas.js'
import { problemResponse } from '../problem.js'
import { exportHeaders, thumbnailAnswers } from '../response-docs.js'
import { ModelDetailSchema, ModelSummarySchema, modelFilterParams } from './model-schemas.js'

const tags = ['Models']

export const maxPageSize = 200
export const defaultPageSize = 50

const invalidQuery = problemResponse(
  'A filter, sort or limit is malformed or out of range (`validation_failed`, with the parameter in `errors`).',
)

export const listModelsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/models',
  operationId: 'listModels',
  tags,
  summary: 'List, filter and search models',
  description: [
    'Models matching every filter given, in `sort` order, one page at a time.',
    '',
    'Paging is by keyset: each page answers `next_cursor`; pass it as `cursor` (with the same filters, sort and order) for',
    'the next page, until it is `null`. Every page costs the same however deep, and a model added or changed meanwhile',
    'never makes a page repeat or skip another. Cursors are opaque and signed: an altered cursor, or one from a query with',
    'other filters, sort or order, answers 400 `invalid_cursor`; start again without it. They stay valid until the token',
    'signing secret changes.',
    '',
    'A rare filter (a search word, tag, collection or format on few models) is read from its own index and sorted; common',
    'ones are tested model by model along the sort order, so a page of either costs tens of milliseconds at a million models.',
  ].join('\n'),
  request: {
    query: z.object({
      ...modelFilterParams,
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(maxPageSize)
        .default(defaultPageSize)
        .openapi({
          description: `Models per page: ${defaultPageSize} by default, at most ${maxPageSize} (more answers 422).`,
        }),
      cursor: z.string().min(1).max(2000).optional().openapi({ description: '`next_cursor` of the previous page.' }),
    }),
  },
  responses: {
    200: {
      description: 'One page.',
      content: {
        'application/json': {
          schema: z
            .object({
              items: z.array(ModelSummarySchema),
              next_cursor: z
                .string()
                .nullable()
                .openapi({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
            })
            .openapi('ModelPage'),
          example: modelPageExample,
        },
      },
    },
    400: problemResponse('The cursor was altered or belongs to another query (`invalid_cursor`).'),
    422: invalidQuery,
  },
})

export const modelStatsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/models/stats',
  operationId: 'getModelStats',
  tags,
  summary: 'Library totals and breakdowns',
  description: [
    'Totals and breakdowns of the whole library.',
    '',
    '`bytes_stored` is the size of all stored content. Every distinct content is stored once (files are deduplicated by',
    'SHA-256; a content that is a file of several models is one blob, counted once), so this is also what the blob store',
    'holds, thumbnails aside. The per-format `bytes` count each file.',
    '`bytes_saved_by_dedup` counts the bytes of every upload the vault answered as a duplicate (it held the bytes',
    'already, so nothing was stored): what keeping each upload would have cost on top. It is a running total since the',
    'library was created; deleting models does not lower it. `duplicate_uploads` is the number of those uploads.',
    '',
    'Breakdowns: per file format (files, models with such a file, bytes), per tag and per collection (models), and per',
    'slicer named in G-code files (files, models). Tags no model carries are left out; empty collections are listed.',
    '',
    'The figures are counters the database keeps on every write (not a pass over the library), so this answers in the',
    'same few milliseconds at any library size and includes every committed change, from any process.',
  ].join('\n'),
  responses: {
    200: {
      description: 'The figures.',
      content: {
        'application/json': {
          schema: z
            .object({
              totals: z.object({
                models: z.number().int(),
                files: z.number().int(),
                bytes_stored: z.number().int(),
                duplicate_uploads: z.number().int(),
                bytes_saved_by_dedup: z.number().int(),
              }),
              by_format: z.array(
                z.object({
                  format: z.string(),
                  files: z.number().int(),
                  models: z.number().int(),
                  bytes: z.number().int(),
                }),
              ),
              by_tag: z.array(z.object({ tag: z.string(), models: z.number().int() })),
              by_collection: z.array(z.object({ id: z.string(), name: z.string(), models: z.number().int() })),
              by_slicer: z.array(z.object({ slicer: z.string(), files: z.number().int(), models: z.number().int() })),
            })
            .openapi('ModelStats'),
        },
      },
    },
  },
})

export const exportModelsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/models/export',
  operationId: 'exportModels',
  tags,
  summary: 'Export model metadata as JSON or CSV',
  description: [
    'Every model matching the filters (all of them without filters), in `sort` order, as a download named',
    '`model-vault-models-<YYYY-MM-DD>.json|csv`. The answer streams while the database is paged through, so memory stays',
    'flat at any library size. If the export fails midway the connection is cut, so a truncated file never looks complete',
    '(the JSON does not parse).',
    '',
    '**JSON** (`application/json`), made to be read back without loss:',
    '`{"format": "model-vault.models", "version": 1, "exported_at": "<ISO 8601>", "models": [<ModelDetail>, ...]}`; each',
    'model exactly as `GET /api/v1/models/{id}` shows it: its fields, tags, collections and every file with its extracted',
    'metadata.',
    '',
    '**CSV** (`text/csv`, RFC 4180: comma-separated, CRLF line ends, a header row, fields with commas, quotes or line breaks',
    'quoted and quotes doubled), one row per model with the columns `id, name, description, tags, collections, file_count,',
    'total_size, formats, files, slicers, created_at, updated_at`. Cells with several values (tags, collections, formats, file',
    'names, slicers) hold one value per line. Text cells that a spreadsheet would run as a formula (starting with `=`, `+`,',
    "`-`, `@`, tab or carriage return) get a leading `'` so they show as text.",
  ].join('\n'),
  request: {
    query: z.object({
      format: z.enum(['json', 'csv']).openapi({ description: '`json` or `csv`; anything else answers 422.' }),
      ...modelFilterParams,
    }),
  },
  responses: {
    200: {
      description: 'The export, as an attachment.',
      headers: exportHeaders,
      content: {
        'application/json': {
          schema: z
            .object({
              format: z.literal('model-vault.models'),
              version: z.literal(1),
              exported_at: z.string().openapi({ format: 'date-time' }),
              models: z.array(ModelDetailSchema),
            })
            .openapi('ModelExport'),
        },
        'text/csv': { schema: { type: 'string' } },
      },
    },
    422: problemResponse('No `format`, an unknown one, or a malformed filter (`validation_failed`).'),
  },
})

export const getModelRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/models/{id}',
  operationId: 'getModel',
  tags,
  summary: 'A model with all its files, their metadata, its tags and collections',
  request: { params: IdParamSchema },
  responses: {
    200: {
      description: 'The model; files oldest first.',
      content: { 'application/json': { schema: ModelDetailSchema, example: modelDetailExample } },
    },
    404: problemResponse('No such model.'),
  },
})

export const tagName = matching(
  z.string().trim().min(1).max(64),
  /^[^,\p{Cc}]+$/u,
  'may not hold commas or control characters',
).openapi({ example: 'calibration' })

/** What an edit may change of a model, by the rules a zip's datapackage.json is read by too. */
export const editableModelFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000),
  tags: z.array(tagName).max(50),
  /** null (or '') clears it. */
  creator: z
    .string()
    .trim()
    .max(200)
    .nullable()
    .transform((value) => value || null),
  source_url: z
    .union([z.literal(''), z.url({ protocol: /^https?$/ }).max(2_048)])
    .nullable()
    .transform((value) => value || null)
    .openapi({ description: 'An http(s) URL; null or "" clears it.' }),
  license: matching(z.string().trim().max(100), /^[^\p{Cc}]*$/u, 'may not hold control characters')
    .openapi({ example: 'CC-BY-NC-4.0' })
    .nullable()
    .transform((value) => value || null)
    .openapi({
      description: 'An SPDX identifier or expression (`CC-BY-NC-4.0`), else free text; null or "" clears it.',
    }),
}

export const updateModelRoute = defineRoute(allow('user', 'manage'), {
  method: 'patch',
  path: '/api/v1/models/{id}',
  operationId: 'updateModel',
  tags,
  summary: "Edit a model's name, description, tags, creator, source or license",
  description: [
    "Changes the fields given; `tags` replaces all of the model's tags (`[]` removes them). Tags are 1-64 characters",
    'without commas or control characters, trimmed, and shared by name regardless of case: the spelling first used for a',
    'tag is the one shown everywhere. `description` is Markdown (the web UI renders it without HTML); `creator`,',
    '`source_url` (http or https) and `license` (an SPDX identifier such as `CC-BY-4.0`, else free text) say who made the',
    'model, where it came from and under what terms; `null` or `""` clears them. Bumps `updated_at`; the search index',
    'follows at once.',
  ].join(' '),
  request: {
    params: IdParamSchema,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              name: editableModelFields.name.optional(),
              description: editableModelFields.description.optional(),
              tags: editableModelFields.tags.optional(),
              creator: editableModelFields.creator.optional(),
              source_url: editableModelFields.source_url.optional(),
              license: editableModelFields.license.optional(),
            })
            .strict()
            .refine((body) => Object.values(body).some((value) => value !== undefined), {
              message: 'give name, description, tags, creator, source_url or license',
            })
            .openapi('UpdateModelRequest'),
        },
      },
    },
  },
  responses: {
    200: { description: 'The model as changed.', content: { 'application/json': { schema: ModelDetailSchema } } },
    404: problemResponse('No such model.'),
    422: problemResponse('Empty change, unknown field, or a bad name, description or tag.'),
  },
})

export const deleteModelRoute = defineRoute(allow('user', 'manage'), {
  method: 'delete',
  path: '/api/v1/models/{id}',
  operationId: 'deleteModel',
  tags,
  summary: 'Delete a model and its files',
  description: [
    'Deletes the model, its files, tags and collection memberships at once. Then the stored bytes and thumbnails that',
    "nothing else references are removed from storage (each content is stored once, so a part's bytes go with it; an",
    'image or document another model also holds stays, as does a thumbnail shared with another file).',
    '',
    'An upload of the same bytes running at that moment is handled safely: the check for remaining references and the',
    'removal run while new file rows are blocked, and ingest verifies its bytes still exist after registering them. Such',
    'an upload either keeps the bytes (it registered first) or answers 409 `content_deleted` and can simply be repeated;',
    'it never leaves a file without its bytes.',
  ].join('\n'),
  request: { params: IdParamSchema },
  responses: {
    204: { description: 'Deleted.' },
    404: problemResponse('No such model.'),
  },
})

export const modelThumbnailRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/models/{id}/thumbnail',
  operationId: 'getModelThumbnail',
  tags,
  summary: "A model's thumbnail",
  description: [
    "The cover image's thumbnail (see `PUT /api/v1/models/{id}/cover`), else that of the first of its files that has",
    'one. PNG or JPEG; GIF or WebP when a small image of that kind is its own thumbnail.',
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
    ...thumbnailAnswers,
    404: problemResponse('No such model, or it has no thumbnail.'),
  },
})

export const chooseCoverRoute = defineRoute(allow('user', 'manage'), {
  method: 'put',
  path: '/api/v1/models/{id}/cover',
  operationId: 'chooseModelCover',
  tags,
  summary: "Choose the image shown as a model's thumbnail",
  description: [
    "Makes one of the model's images (a file with `role` `image`) its cover: `cover_file_id`, and the model's thumbnail",
    "is the cover's. Without a choice, the first image a model gets is its cover; a model without images keeps the",
    'thumbnail of its first file that has one (embedded in a 3MF or G-code, or rendered from a mesh). An image too',
    'large to have a thumbnail of its own may still be the cover; the thumbnail then stays as without images.',
  ].join(' '),
  request: {
    params: IdParamSchema,
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({ file_id: idField().openapi({ description: 'The id of an image of this model.' }) })
            .strict()
            .openapi('ChooseCoverRequest', { example: { file_id: '0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b' } }),
        },
      },
    },
  },
  responses: {
    200: {
      description: 'The model with its new cover.',
      content: { 'application/json': { schema: ModelDetailSchema } },
    },
    404: problemResponse('No such model.'),
    422: problemResponse(
      '`file_id` missing or malformed, or not an image of this model (`validation_failed`, with `body.file_id` in `errors`).',
    ),
  },
})
