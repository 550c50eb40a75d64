import { z } from '@hono/zod-openapi'
import { defineRoute } from '../access.js'
import { IdParamSchema } from '../auth/account-schemas.js'
import { FileSchema, ModelSchema } from '../library-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Models']

export const ModelDetailSchema = ModelSchema.extend({ files: z.array(FileSchema) }).openapi('ModelDetail')

export const getModelRoute = defineRoute('user', {
  method: 'get',
  path: '/api/v1/models/{id}',
  operationId: 'getModel',
  tags,
  summary: 'A model with all its files and their metadata',
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The model; files oldest first.', content: { 'application/json': { schema: ModelDetailSchema } } },
    404: problemResponse('No such model.'),
  },
})

export const modelThumbnailRoute = defineRoute('user', {
  method: 'get',
  path: '/api/v1/models/{id}/thumbnail',
  operationId: 'getModelThumbnail',
  tags,
  summary: "A model's thumbnail",
  description: 'The thumbnail of the first of its files that has one. PNG or JPEG.',
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The image.', content: { 'image/png': { schema: { type: 'string', format: 'binary' } } } },
    304: { description: 'Not modified.' },
    404: problemResponse('No such model, or it has no thumbnail.'),
  },
})
