import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { uploadAnswerExample } from '../answer-examples.js'
import { idField } from '../common-schemas.js'
import { FileSchema, ModelSchema } from '../library-schemas.js'
import { editableModelFields } from '../models/models.routes.js'
import { problemResponse } from '../problem.js'

const tags = ['Ingest']

export const IngestResultSchema = z
  .object({
    kind: z.literal('file').openapi({ description: 'One file was uploaded (anything but a `.zip`).' }),
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

const ArchiveEntrySchema = z
  .object({
    path: z.string().openapi({ description: 'The entry as the zip names it.', example: 'Benchy/images/photo.jpg' }),
    outcome: z.enum(['stored', 'duplicate', 'skipped']).openapi({
      description:
        '`stored`: a new file; `duplicate`: the vault held these bytes already; `skipped`: not stored (see `reason`).',
    }),
    reason: z.string().nullable().openapi({
      description: 'Why a skipped entry was not stored; null otherwise.',
      example: 'nested archives are not unpacked: upload it on its own',
    }),
    file: FileSchema.nullable().openapi({ description: 'The stored or existing file; null when skipped.' }),
    model_id: z.string().nullable().openapi({ description: "The file's model; null when skipped." }),
  })
  .openapi('ArchiveEntry')

export const ArchiveIngestResultSchema = z
  .object({
    kind: z.literal('archive').openapi({ description: 'A `.zip` was unpacked.' }),
    models: z.array(z.object({ model: ModelSchema, model_created: z.boolean() })).openapi({
      description: "Every model the zip's files went to or were found in: `model_created` when the zip made it.",
    }),
    entries: z.array(ArchiveEntrySchema).openapi({ description: 'Every entry of the zip, in its order.' }),
    stored: z.number().int().openapi({ example: 4 }),
    duplicates: z.number().int().openapi({ example: 0 }),
    skipped: z.number().int().openapi({ example: 1 }),
  })
  .openapi('ArchiveIngestResult')

const IngestAnswerSchema = z
  .discriminatedUnion('kind', [IngestResultSchema, ArchiveIngestResultSchema])
  .openapi('IngestAnswer')

const answers = {
  200: {
    description:
      'Duplicate: the vault already holds these bytes (for a zip: every entry was a duplicate or skipped). Nothing was stored; the answer points to the existing file and model.',
    content: { 'application/json': { schema: IngestAnswerSchema } },
  },
  201: {
    description: 'Stored as a new file (a zip: at least one), attached to an existing or new model.',
    content: { 'application/json': { schema: IngestAnswerSchema, example: uploadAnswerExample } },
  },
  400: problemResponse('The multipart body is malformed or was cut off (`malformed_multipart`).'),
  411: problemResponse('PUT without `Content-Length` or chunked body.'),
  413: problemResponse('The file is larger than `VAULT_MAX_UPLOAD_BYTES` (`payload_too_large`). Nothing was stored.'),
  409: problemResponse(
    'A model holding the same bytes was deleted while this upload ran, taking the bytes with it (`content_deleted`); nothing was kept: upload again.',
  ),
  415: problemResponse('Not `multipart/form-data` (`unsupported_media_type`).'),
  422: problemResponse(
    [
      'No file, an empty file, an unknown `model_id` (`validation_failed`), or a refused file (`unsafe_file`: zip bombs, path tricks).',
      'For a zip, nothing is stored when it is refused as a whole: `unsafe_file` (bomb ratio, `../` or absolute names, overlapping entries,',
      'over 1,000 entries), `unreadable_archive` (not a zip, truncated), `validation_failed` (no entries, a bad `datapackage.json`,',
      '`model_id` with a package of several models).',
    ].join(' '),
  ),
} as const

/**
 * A multipart request body: the file in the field `file`, and optional text `fields`. A plain
 * schema (not zod), so the framework documents the body but never buffers it to validate.
 */
export const multipartFileBody = (
  fileDescription: string,
  fields: Record<string, { type: 'string'; description: string; minLength?: number; maxLength?: number }>,
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
  'twice does no harm, also when the uploads run concurrently. The vault reads four upload bodies at a time (each until',
  'its file is stored, or for 10 seconds at most); a further upload waits, unread, until one is done, so a burst of many',
  'uploads neither fills memory nor slows browsing (what its headers already refuse, such as 413 or 415, is answered at',
  'once). Send uploads a few at a time rather than hundreds at once.',
  '',
  'Content is a duplicate only on the same model: bytes another model holds, sent with `model_id` or `model_name`, become',
  'a file of that model too, sharing the stored bytes and the figures read before (a remix keeps the mesh of its original',
  'as its own part; deleting either model leaves the other whole). Without `model_id` or `model_name`, a copy held',
  'anywhere answers as the duplicate. Images (.png .jpg .jpeg .webp .gif) and documents (.pdf .txt .md .markdown, README,',
  'LICENSE and the like) never make a model by matching (`role` on the file says which it is).',
  "A model's first image becomes its cover and thumbnail; a large PNG or JPEG gets a thumbnail scaled to 512 pixels.",
  'A README (`README`, `README.md`, `.markdown`, `.txt`) at the top of a model (no `folder`) becomes its description when it',
  'has none: its text as UTF-8 (invalid bytes replaced), at most 10,000 characters. A description already set is kept; of',
  'READMEs sent at once, the first stored wins. A zip and the folder import follow the same rule.',
  '',
  'The file is read for its metadata (STL/OBJ/3MF geometry, 3MF title and thumbnail, G-code slicer figures and thumbnails,',
  'STEP header) and gets a thumbnail (embedded, or rendered from the mesh). It joins a model: the `model_id` given; else',
  'for a sliced file (G-code, binary G-code `.bgcode`, a `.gcode.3mf` with sliced plates), the model whose mesh file is',
  'named like an object it was sliced from or like the start of its own name, never one by geometry; else the model whose',
  'mesh it matches (the same mesh as binary STL, ASCII STL or in a 3MF, by triangle count, size and volume); else a new',
  "model named after the file (or the 3MF title). A mesh uploaded after its sliced file joins the sliced file's model when",
  'that has no mesh yet, so the order and concurrency of the uploads do not matter. A file that cannot be parsed is stored',
  'as opaque with `parse_warnings`; a damaged binary G-code (cut short, a bad checksum, absurd sizes) is refused with 422',
  '`unsafe_file`. A `.bgcode` is format `gcode`, recognised by its `GCDE` header, and served as `application/octet-stream`.',
  '',
  'G-code is stored with the value of every secret-bearing slicer setting (`printhost_apikey`, `printhost_password`,',
  '`printhost_user` and other keys, passwords, tokens and user names) replaced by `[redacted]` as it streams in, so no',
  'download carries it; every other line keeps its bytes, so the file prints the same. The replacement is deterministic:',
  'the same G-code uploaded again is a duplicate. The stored size and hash are those of the redacted bytes. Other',
  'formats are stored as sent: a 3MF project keeps the settings inside it (only its `slicer_config` metadata is redacted),',
  'and a `.bgcode` its blocks, whose checksums a rewrite would break (only its `config` metadata is redacted).',
  'The answer has `kind: "file"`.',
  '',
  '**A `.zip` is unpacked** (answer `kind: "archive"`): each entry is ingested as if uploaded on its own (deduplicated, read,',
  "redacted) into one model, named after the zip's single top folder if everything lies in one, else after the zip, each",
  'file in its folder below that top folder. Meshes, G-code and CAD files go in first, then other files, then pictures and',
  'documents, as the folder import sends them; `model_id` names the model instead. Skipped with a `reason`, never silently: folders, symbolic links, `__MACOSX/`, `.DS_Store`, `Thumbs.db`,',
  'zips inside the zip, empty entries, entries over `VAULT_MAX_UPLOAD_BYTES`, and entries refused while they inflate (one that',
  'yields more than it declares). The whole zip is refused, storing nothing, when unsafe: more than 1,000 entries, a large',
  'entry or the whole zip inflating beyond 200:1, `../` or absolute names, overlapping entries. The zip itself is held on',
  'scratch disk while it is read and never kept. A `datapackage.json` at the root (a model package) names the model (`title`)',
  'and gives its `description`, tags (`keywords`, by the rules of `PATCH /api/v1/models/{id}`) and collections',
  "(`model_vault.collections`, created when missing); each `resources[]` entry gives its file's `model_vault.original_name`,",
  'and a `sha256:` `hash` that must match (else the entry is skipped). A zip with a `datapackage.json` in each top folder is a',
  'package of several models, one per folder. Example: `curl -H "Authorization: Bearer $TOKEN" -F file=@Benchy.zip $VAULT/api/v1/ingest`',
].join('\n')

const modelNameDescription =
  "Make a new model of this name for the file, instead of choosing one (the file joins no other model by its mesh or G-code; a file another model holds becomes a file of this one too, sharing the stored bytes). For a zip: the name of the model it makes, instead of its folder's or its own. Not with `model_id`: 422."

const folderDescription =
  "Where the file goes inside its model, '/'-separated (`stls/supported`): what a folder upload sends as the file's path below the model's folder. Missing: the top. For a zip: the folder its entries' own folders go below. `..`, control characters, more than 32 folders or 1,024 characters: 422."

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
      model_name: { type: 'string', minLength: 1, maxLength: 200, description: modelNameDescription },
      folder: { type: 'string', maxLength: 1024, description: folderDescription },
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
        model_name: editableModelFields.name.optional().openapi({ description: modelNameDescription }),
        folder: z.string().max(1024).optional().openapi({ description: folderDescription }),
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
