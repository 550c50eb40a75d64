import { z } from '@hono/zod-openapi'
import { cleanFolder } from '../../core/library/folders.js'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema, idField } from '../common-schemas.js'
import { problemResponse } from '../problem.js'
import { ModelDetailSchema } from './model-schemas.js'
import { editableModelFields } from './models.routes.js'

const tags = ['Models']

/** A folder inside a model, in the one form the vault keeps (see `cleanFolder`). */
export const folderField = z
  .string()
  .max(1_024)
  .transform((raw, ctx) => {
    const folder = cleanFolder(raw)
    if (folder === undefined)
      ctx.addIssue({ code: 'custom', message: 'is not a folder inside the model (no `..`, no control characters)' })
    return folder ?? ''
  })
  .openapi({ description: "'/'-separated (`stls/supported`); '' for the top.", example: 'stls/supported' })

const fileIds = z.array(idField()).min(1).max(1_000)

const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
})

const sameModelAnswers = {
  404: problemResponse('No such model.'),
  422: problemResponse(
    'A malformed body, or ids that name no file or model (`validation_failed`, with the field in `errors`).',
  ),
}

export const addFilesRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/models/{id}/files',
  operationId: 'addFilesToModel',
  tags,
  summary: 'Move or copy files of other models into this one',
  description: [
    '`move`: the files leave their models and join this one, keeping their ids (links, dispatch records and the sliced',
    'sources of G-code follow them); a model left without files stays, empty. `copy`: each becomes a file of this model',
    'too, sharing the stored bytes (a new file id; deleting either model leaves the other whole). A model holds each',
    'content once: a file whose bytes this model holds already is not added twice (when moved, it leaves its model',
    'and its dispatch records go to the file that stays). `folder` puts them in one folder of this model; without it',
    'each keeps its own. To upload new files into a model, send them to `POST /api/v1/ingest` with `model_id`.',
  ].join(' '),
  request: {
    params: IdParamSchema,
    body: jsonBody(
      z
        .object({
          file_ids: fileIds,
          mode: z.enum(['move', 'copy']).openapi({ description: 'Leave their models (`move`) or stay there too.' }),
          folder: folderField.optional(),
        })
        .strict()
        .openapi('AddFilesRequest', { example: { file_ids: ['0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b'], mode: 'move' } }),
    ),
  },
  responses: {
    200: { description: 'This model as it is now.', content: { 'application/json': { schema: ModelDetailSchema } } },
    ...sameModelAnswers,
  },
})

export const mergeModelsRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/models/{id}/merge',
  operationId: 'mergeModels',
  tags,
  summary: 'Merge other models into this one',
  description: [
    'Every file of the models named moves into this one, keeping its id and folder (each content once: a file whose',
    'bytes this model holds already gives way to the one here, and its dispatch records follow it). Their tags and',
    "collections join this model's; its description, creator, source and license, where empty, take the first of",
    'theirs that has one. Then they are deleted. Undo by `POST /api/v1/models/{id}/split` with the files that came.',
  ].join(' '),
  request: {
    params: IdParamSchema,
    body: jsonBody(
      z
        .object({ model_ids: z.array(idField()).min(1).max(100) })
        .strict()
        .openapi('MergeModelsRequest', { example: { model_ids: ['0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b'] } }),
    ),
  },
  responses: {
    200: { description: 'The merged model.', content: { 'application/json': { schema: ModelDetailSchema } } },
    ...sameModelAnswers,
  },
})

export const splitModelRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/models/{id}/split',
  operationId: 'splitModel',
  tags,
  summary: 'Split files of this model into a new model',
  description: [
    'The files named (all of this model) move to a new model of the name given, keeping their ids and folders. The',
    "new model takes this one's tags, collections, creator, source and license. This model stays, also when no file",
    'is left in it.',
  ].join(' '),
  request: {
    params: IdParamSchema,
    body: jsonBody(
      z
        .object({ file_ids: fileIds, name: editableModelFields.name })
        .strict()
        .openapi('SplitModelRequest', {
          example: { file_ids: ['0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b'], name: 'Dragon (wings)' },
        }),
    ),
  },
  responses: {
    201: { description: 'The new model.', content: { 'application/json': { schema: ModelDetailSchema } } },
    ...sameModelAnswers,
  },
})

const SuggestedModelSchema = z
  .object({
    id: z.string().openapi({ example: '0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b' }),
    name: z.string().openapi({ example: 'Shape Box' }),
    file_count: z.number().int(),
    created_at: z.string().openapi({ example: '2026-01-02T10:00:00.000Z' }),
    has_thumbnail: z.boolean(),
  })
  .openapi('SuggestedModel')

const MergeSuggestionsSchema = z
  .object({
    total: z.number().int().openapi({ description: 'Every group offered, of which `groups` holds the first `limit`.' }),
    groups: z.array(
      z
        .object({
          reasons: z.array(z.enum(['same_name', 'gcode_names_mesh'])).openapi({
            description:
              '`same_name`: their names are equal but for case, spaces, dashes and extension; `gcode_names_mesh`: a G-code of one was sliced from a mesh another holds.',
          }),
          target: SuggestedModelSchema.openapi({ description: 'The model the others would merge into.' }),
          others: z.array(SuggestedModelSchema),
        })
        .openapi('MergeSuggestion'),
    ),
  })
  .openapi('MergeSuggestions')

export const listMergeSuggestionsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/models/merge-suggestions',
  operationId: 'listMergeSuggestions',
  tags,
  summary: 'Models that look like one model',
  description: [
    'Groups of models that earlier versions split: equal names, or a G-code whose metadata names a mesh another model',
    'holds. Groups are disjoint; the target holds the mesh, else it is the oldest. Nothing merges by itself: merge a',
    'group by `POST /api/v1/models/{target}/merge`, or say it is not one model by `POST .../merge-suggestions/dismiss`.',
  ].join(' '),
  request: {
    query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }),
  },
  responses: {
    200: {
      description: 'The groups, oldest target first.',
      content: { 'application/json': { schema: MergeSuggestionsSchema } },
    },
    422: problemResponse('A malformed query (`validation_failed`).'),
  },
})

export const dismissMergeSuggestionRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/models/merge-suggestions/dismiss',
  operationId: 'dismissMergeSuggestion',
  tags,
  summary: 'Say a group of models is not one model',
  description:
    'The group is not suggested again unless another model joins it. Deleting or merging a model forgets it here.',
  request: {
    body: jsonBody(
      z
        .object({ model_ids: z.array(idField()).min(2).max(100) })
        .strict()
        .openapi('DismissMergeSuggestionRequest', {
          example: { model_ids: ['0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b', '0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1c'] },
        }),
    ),
  },
  responses: {
    204: { description: 'Dismissed.' },
    422: problemResponse('Fewer than two or more than 100 ids, an id named twice, or an id that names no model.'),
  },
})
