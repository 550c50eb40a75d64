import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { idField } from '../common-schemas.js'
import { FileSchema, ModelSchema } from '../library-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Ingest']

export const IngestResultSchema = z
  .object({
    duplicate: z.boolean().openapi({
      description:
        'True when the vault already held these exact bytes (for G-code, once its secrets are redacted): nothing new was stored.',
    }),
    model_created: z.boolean().openapi({
      description:
        'True when this upload made the model; false when the file joined an existing one (the `model_id` given, or a model whose mesh matched) or was a duplicate.',
    }),
    file: FileSchema,
    model: ModelSchema,
  })
  .openapi('IngestResult')

const answers = {
  200: {
    description:
      'Duplicate: the vault already holds these bytes. Nothing was stored; the answer points to the existing file and model.',
    content: { 'application/json': { schema: IngestResultSchema } },
  },
  201: {
    description: 'Stored as a new file, attached to an existing or new model.',
    content: { 'application/json': { schema: IngestResultSchema } },
  },
  400: problemResponse('The multipart body is malformed or was cut off (`malformed_multipart`).'),
  411: problemResponse('PUT without `Content-Length` or chunked body.'),
  413: problemResponse('The file is larger than `VAULT_MAX_UPLOAD_BYTES` (`payload_too_large`). Nothing was stored.'),
  409: problemResponse(
    'A model holding the same bytes was deleted while this upload ran, taking the bytes with it (`content_deleted`); nothing was kept: upload again.',
  ),
  415: problemResponse('Not `multipart/form-data` (`unsupported_media_type`).'),
  422: problemResponse(
    'No file, an empty file, an unknown `model_id` (`validation_failed`), or a refused archive (`unsafe_file`: zip bombs, path tricks).',
  ),
} as const

/**
 * A multipart request body: the file in the field `file`, and optional text `fields`. A plain
 * schema (not zod), so the framework documents the body but never buffers it to validate.
 */
export const multipartFileBody = (
  fileDescription: string,
  fields: Record<string, { type: 'string'; description: string }>,
) => ({
  body: {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object' as const,
          required: ['file'],
          properties: { file: { type: 'string' as const, format: 'binary', description: fileDescription }, ...fields },
        },
      },
    },
  },
})

const description = [
  'Streams the file into the vault: it is hashed (SHA-256) and stored as it arrives, so memory stays flat at any size.',
  'Identical bytes uploaded again are a no-op answering 200 with the existing file and model, so a slicer hook that fires',
  'twice does no harm, also when the uploads run concurrently.',
  '',
  'Images (.png .jpg .jpeg .webp .gif) and documents (.pdf .txt .md .markdown, README, LICENSE and the like) are',
  'duplicates only on the same model: sent with another `model_id` they become a file of that model too, sharing the',
  'stored bytes (`role` on the file says which it is). Without `model_id`, a copy held anywhere answers as the duplicate.',
  "A model's first image becomes its cover and thumbnail; a large PNG or JPEG gets a thumbnail scaled to 512 pixels.",
  '',
  'The file is read for its metadata (STL/OBJ/3MF geometry, 3MF title and thumbnail, G-code slicer figures and thumbnails,',
  'STEP header) and gets a thumbnail (embedded, or rendered from the mesh). It joins a model: the `model_id` given; else',
  'the model whose mesh it matches (the same mesh as binary STL, ASCII STL or in a 3MF, by triangle count, size and',
  'volume); else, for G-code, the model whose mesh file is named like a sliced object or like the start of the G-code file',
  'name; else a new model named after the file (or the 3MF title). A file that cannot be parsed is stored as opaque with',
  '`parse_warnings`.',
  '',
  'G-code is stored with the value of every secret-bearing slicer setting (`printhost_apikey`, `printhost_password`,',
  '`printhost_user` and other keys, passwords, tokens and user names) replaced by `[redacted]` as it streams in, so no',
  'download carries it; every other line keeps its bytes, so the file prints the same. The replacement is deterministic:',
  'the same G-code uploaded again is a duplicate. The stored size and hash are those of the redacted bytes. Other',
  'formats are stored as sent: a 3MF project keeps the settings inside it (only its `slicer_config` metadata is redacted).',
].join('\n')

export const ingestRoute = defineRoute(
  allow('user', 'upload'),
  {
    method: 'post',
    path: '/api/v1/ingest',
    operationId: 'ingestFile',
    tags,
    summary: 'Upload a file (multipart)',
    description: `${description}\n\nExample: \`curl -H "Authorization: Bearer $TOKEN" -F file=@Shape-Box.stl $VAULT/api/v1/ingest\``,
    request: multipartFileBody('The file; its name decides the format (.stl, .3mf, .obj, .gcode, .step …).', {
      model_id: { type: 'string', description: 'Attach to this model instead of choosing one.' },
    }),
    responses: answers,
  },
  { upload: true },
)

export const ingestRawRoute = defineRoute(
  allow('user', 'upload'),
  {
    method: 'put',
    path: '/api/v1/ingest/{filename}',
    operationId: 'ingestFileRaw',
    tags,
    summary: 'Upload a file (raw body)',
    description: `${description}\n\nThe body is the file itself; the path names it. For scripts: \`curl -H "Authorization: Bearer $TOKEN" -T part.gcode $VAULT/api/v1/ingest/part.gcode\``,
    request: {
      params: z.object({
        filename: z
          .string()
          .min(1)
          .max(255)
          .openapi({ param: { name: 'filename', in: 'path' }, example: 'Shape-Box.gcode' }),
      }),
      query: z.object({
        model_id: idField().optional().openapi({ description: 'Attach to this model.' }),
      }),
      body: {
        required: true,
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      },
    },
    responses: answers,
  },
  { upload: true },
)
