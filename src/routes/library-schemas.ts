import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { FileRecord, ModelRecord } from '../core/library/records.js'

export const FileSchema = z
  .object({
    id: z.string(),
    model_id: z.string(),
    name: z.string().openapi({ description: 'The original file name.', example: 'Shape-Box.stl' }),
    folder: z.string().openapi({
      description:
        "Where the file sits inside its model, '/'-separated, as the folder or zip it came from had it (`stls/supported`); '' for the top. The model's files form a tree by it, and a model package keeps it.",
      example: 'stls/supported',
    }),
    format: z.enum(['stl', '3mf', 'obj', 'gcode', 'step', 'image', 'document', 'other']),
    role: z.enum(['part', 'image', 'document']).openapi({
      description:
        'What the file is to its model, from its name: `image` (.png .jpg .jpeg .webp .gif), `document` (.pdf .txt .md .markdown, and README, LICENSE, LICENCE, COPYING, NOTICE, AUTHORS, CHANGELOG with any extension), else `part`. A model holds each content once; the same content may be a file of several models (one stored blob).',
      example: 'part',
    }),
    content_type: z.string().openapi({ example: 'model/stl' }),
    size: z.number().int().openapi({ description: 'Bytes.' }),
    sha256: z.string().openapi({ description: 'Content hash; also the download ETag.' }),
    metadata: z.record(z.string(), z.unknown()).openapi({
      description:
        'What was read from the file. Meshes: `mesh` {triangles, bbox, size, volume (mm³), area (mm²), manifold}. 3MF: also `objects`, `model` (title, designer, description…), `slicer_config`. G-code: `gcode` {slicer, estimated_time_s, filament, layer_height_mm, nozzle_diameter_mm, printer_model, objects, config, thumbnails…}. STEP: `step` (header). Images: `image` {type (png, jpg, gif, webp), width, height}. Secrets in slicer configs are replaced by "[redacted]" (for G-code, in the stored bytes too).',
    }),
    parse_warnings: z
      .array(z.string())
      .openapi({ description: 'What could not be read. A file that could not be parsed is still stored, as opaque.' }),
    has_thumbnail: z.boolean(),
    preview_triangles: z.number().int().nullable().openapi({
      description:
        'Triangles of the preview mesh made on upload for a mesh of over 200,000 triangles: a simplified copy of at most 100,000 (binary STL, `preview_url`) that a viewer can load first. Null when the file has none (smaller meshes, other formats, files stored before previews were made).',
      example: 98_304,
    }),
    uploaded_by: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    download_url: z.string().openapi({ example: '/api/v1/files/…/content' }),
    thumbnail_url: z.string().nullable(),
    preview_url: z.string().nullable().openapi({ example: '/api/v1/files/…/preview' }),
  })
  .openapi('File')

export const ModelSchema = z
  .object({
    id: z.string(),
    name: z.string().openapi({ example: 'Shape-Box' }),
    description: z.string().openapi({ description: 'Markdown (CommonMark); the web UI renders it without HTML.' }),
    creator: z.string().nullable().openapi({ description: 'Who designed it.', example: 'Printables user 3dsimo' }),
    source_url: z
      .string()
      .nullable()
      .openapi({ description: 'Where it came from.', example: 'https://www.printables.com/model/12345' }),
    license: z.string().nullable().openapi({
      description: 'An SPDX license identifier (`CC-BY-4.0`, `MIT`) or free text when none fits.',
      example: 'CC-BY-4.0',
    }),
    has_thumbnail: z.boolean(),
    analysing_files: z.number().int().openapi({
      description:
        'Its files whose thumbnail or preview is still being rendered in the background (`GET /api/v1/analysis`); 0 when none. Figures, metadata and search are complete as soon as an upload answers; only these pictures come later.',
      example: 0,
    }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    url: z.string(),
    thumbnail_url: z.string().nullable(),
  })
  .openapi('Model')

/** `/api/v1` under whatever prefix the app is mounted at, for links in answers. */
export function apiBase(c: Context): string {
  return `${c.req.path.slice(0, c.req.path.indexOf('/api/v1/'))}/api/v1`
}

export function presentFile(c: Context, file: FileRecord): z.infer<typeof FileSchema> {
  const base = `${apiBase(c)}/files/${file.id}`
  return {
    ...file,
    format: file.format as z.infer<typeof FileSchema>['format'],
    download_url: `${base}/content`,
    thumbnail_url: file.has_thumbnail ? `${base}/thumbnail` : null,
    preview_url: file.preview_triangles === null ? null : `${base}/preview`,
  }
}

export function presentModel(c: Context, model: ModelRecord): z.infer<typeof ModelSchema> {
  const url = `${apiBase(c)}/models/${model.id}`
  return { ...model, url, thumbnail_url: model.has_thumbnail ? `${url}/thumbnail` : null }
}
