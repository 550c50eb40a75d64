import { z } from '@hono/zod-openapi'
import { maxCollectionDepth } from '../../core/library/collections.js'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema, idField, matching } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Collections']

export const CollectionSchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ example: 'Calibration' }),
    description: z.string().openapi({ description: 'Markdown.' }),
    parent_id: z.string().nullable().openapi({ description: 'The collection it sits in; null at the top.' }),
    cover_model_id: z.string().nullable().openapi({
      description:
        "The model whose thumbnail (`GET /models/{id}/thumbnail`) is the collection's cover: the one chosen (`cover_chosen`), else the first of its models by name that has a thumbnail; null when none has.",
    }),
    cover_chosen: z
      .boolean()
      .openapi({ description: 'Whether someone chose the cover (`PATCH` with `cover_model_id`).' }),
    child_count: z.number().int().openapi({ description: 'Collections directly inside it.' }),
    model_count: z
      .number()
      .int()
      .openapi({ description: 'Models put in it (not counting those of the collections inside it).' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z
      .string()
      .openapi({ format: 'date-time', description: 'Last rename, description change, or model added or removed.' }),
    url: z.string(),
    models_url: z.string().openapi({ description: 'Its models: the model list filtered by `collection`.' }),
  })
  .openapi('Collection')

/** A collection's name, also as a zip's datapackage.json lists it. */
export const collectionName = matching(
  z.string().trim().min(1).max(100),
  /^[^\p{Cc}]+$/u,
  'may not hold control characters',
).openapi({
  description: '1-100 characters, trimmed; unique regardless of case.',
  example: 'Calibration prints',
})
const description = z.string().max(10_000)
const parentId = idField()
  .nullable()
  .openapi({
    description: `The collection to put it in; null: at the top. It must exist, must not be the collection itself or one inside it, and collections nest at most ${maxCollectionDepth} deep.`,
  })

const json = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
})
const collectionAnswer = (text: string) => ({
  description: text,
  content: { 'application/json': { schema: CollectionSchema } },
})
/** What adding and removing a model share: the path, its parameters and the failure. */
const membership = {
  path: '/api/v1/collections/{id}/models/{model_id}',
  tags,
  request: {
    params: IdParamSchema.extend({
      model_id: idField().openapi({ param: { name: 'model_id', in: 'path' } }),
    }),
  },
}
const membershipAnswer = (done: string) => ({
  204: { description: done },
  404: problemResponse('No such collection or model.'),
})

export const listCollectionsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/collections',
  operationId: 'listCollections',
  tags,
  summary: 'All collections with their model counts',
  description:
    'Every collection, by name (ignoring case). Collections are shared by all users of the vault. Collections nest: each names its `parent_id`, so a client builds the tree from this one list.',
  responses: {
    200: {
      description: 'The collections.',
      content: {
        'application/json': { schema: z.object({ items: z.array(CollectionSchema) }).openapi('CollectionList') },
      },
    },
  },
})

export const createCollectionRoute = defineRoute(allow('user', 'manage'), {
  method: 'post',
  path: '/api/v1/collections',
  operationId: 'createCollection',
  tags,
  summary: 'Create a collection',
  request: json(
    z
      .object({ name: collectionName, description: description.optional(), parent_id: parentId.optional() })
      .strict()
      .openapi('CreateCollectionRequest'),
  ),
  responses: {
    201: collectionAnswer('Created; `Location` names it.'),
    409: problemResponse('A collection has this name already (`collection_name_taken`).'),
    422: problemResponse('Missing or bad name, an unknown or too deep parent, or an unknown field.'),
  },
})

export const getCollectionRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/collections/{id}',
  operationId: 'getCollection',
  tags,
  summary: 'A collection',
  request: { params: IdParamSchema },
  responses: { 200: collectionAnswer('The collection.'), 404: problemResponse('No such collection.') },
})

export const updateCollectionRoute = defineRoute(allow('user', 'manage'), {
  method: 'patch',
  path: '/api/v1/collections/{id}',
  operationId: 'updateCollection',
  tags,
  summary: 'Rename a collection, change its description or cover, or move it',
  description: 'A new `parent_id` moves the collection with everything inside it; null moves it to the top.',
  request: {
    params: IdParamSchema,
    ...json(
      z
        .object({
          name: collectionName.optional(),
          description: description.optional(),
          parent_id: parentId.optional(),
          cover_model_id: idField().nullable().optional().openapi({
            description:
              'A model of the collection, with a thumbnail, whose thumbnail becomes its cover; null: back to the first of its models (by name) that has one.',
          }),
        })
        .strict()
        .refine((body) => Object.values(body).some((value) => value !== undefined), {
          message: 'give name, description, parent_id or cover_model_id',
        })
        .openapi('UpdateCollectionRequest'),
    ),
  },
  responses: {
    200: collectionAnswer('The collection as changed.'),
    404: problemResponse('No such collection.'),
    409: problemResponse('Another collection has this name (`collection_name_taken`).'),
    422: problemResponse(
      'Empty change, bad name, an unknown field, a move into itself, into a collection inside it or too deep, or a cover that is not a model of the collection with a thumbnail.',
    ),
  },
})

export const deleteCollectionRoute = defineRoute(allow('user', 'manage'), {
  method: 'delete',
  path: '/api/v1/collections/{id}',
  operationId: 'deleteCollection',
  tags,
  summary: 'Delete a collection',
  description:
    'Its models stay in the library. A collection with collections inside it is kept: move or delete those first.',
  request: { params: IdParamSchema },
  responses: {
    204: { description: 'Deleted.' },
    404: problemResponse('No such collection.'),
    409: problemResponse('Collections are inside it (`collection_has_children`).'),
  },
})

export const addCollectionModelRoute = defineRoute(allow('user', 'manage'), {
  ...membership,
  method: 'put',
  operationId: 'addModelToCollection',
  summary: 'Add a model to a collection',
  description:
    'Idempotent: adding a model that is in the collection already changes nothing. A model can be in any number of collections.',
  responses: membershipAnswer('The model is in the collection.'),
})

export const removeCollectionModelRoute = defineRoute(allow('user', 'manage'), {
  ...membership,
  method: 'delete',
  operationId: 'removeModelFromCollection',
  summary: 'Remove a model from a collection',
  description:
    'Idempotent: removing a model that is not in the collection changes nothing. The model stays in the library.',
  responses: membershipAnswer('The model is not in the collection.'),
})
