import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema, idField, matching } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Collections']

export const CollectionSchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ example: 'Calibration' }),
    description: z.string(),
    model_count: z.number().int().openapi({ description: 'Models in it.' }),
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
  description: 'Every collection, by name (ignoring case). Collections are shared by all users of the vault.',
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
    z.object({ name: collectionName, description: description.optional() }).strict().openapi('CreateCollectionRequest'),
  ),
  responses: {
    201: collectionAnswer('Created; `Location` names it.'),
    409: problemResponse('A collection has this name already (`collection_name_taken`).'),
    422: problemResponse('Missing or bad name, or an unknown field.'),
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
  summary: 'Rename a collection or change its description',
  request: {
    params: IdParamSchema,
    ...json(
      z
        .object({ name: collectionName.optional(), description: description.optional() })
        .strict()
        .refine((body) => body.name !== undefined || body.description !== undefined, {
          message: 'give name or description',
        })
        .openapi('UpdateCollectionRequest'),
    ),
  },
  responses: {
    200: collectionAnswer('The collection as changed.'),
    404: problemResponse('No such collection.'),
    409: problemResponse('Another collection has this name (`collection_name_taken`).'),
    422: problemResponse('Empty change, bad name, or an unknown field.'),
  },
})

export const deleteCollectionRoute = defineRoute(allow('user', 'manage'), {
  method: 'delete',
  path: '/api/v1/collections/{id}',
  operationId: 'deleteCollection',
  tags,
  summary: 'Delete a collection',
  description: 'Its models stay in the library.',
  request: { params: IdParamSchema },
  responses: { 204: { description: 'Deleted.' }, 404: problemResponse('No such collection.') },
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
