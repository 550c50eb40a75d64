import { z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { ModelFilters, ModelQuery, SortKey } from '../../core/library/model-query.js'
import { sortKeys } from '../../core/library/model-query.js'
import type { ModelDetailRecord, ModelSummaryRecord } from '../../core/library/models.js'
import { apiBase, FileSchema, ModelSchema, presentFile } from '../library-schemas.js'

const formats = ['stl', '3mf', 'obj', 'gcode', 'step', 'image', 'document', 'other'] as const

export const FileSummarySchema = z
  .object({
    count: z.number().int(),
    formats: z.array(z.enum(formats)).openapi({ description: 'Distinct formats of its files, sorted.' }),
    total_size: z.number().int().openapi({ description: 'Bytes of all its files.' }),
  })
  .openapi('FileSummary')

export const ModelSummarySchema = ModelSchema.extend({
  tags: z.array(z.string()).openapi({ description: 'Sorted regardless of case.' }),
  file_summary: FileSummarySchema,
}).openapi('ModelSummary')

export const CollectionRefSchema = z
  .object({ id: z.string(), name: z.string(), url: z.string() })
  .openapi('CollectionRef')

export const ModelDetailSchema = ModelSummarySchema.extend({
  cover_file_id: z.string().nullable().openapi({
    description:
      "The image shown as the model's thumbnail: its first image unless another was chosen (`PUT /api/v1/models/{id}/cover`); null when it has no image.",
  }),
  collections: z.array(CollectionRefSchema).openapi({ description: 'The collections it is in, by name.' }),
  files: z.array(FileSchema).openapi({ description: 'Oldest first.' }),
}).openapi('ModelDetail')

/**
 * Presents models as lists show them: made once per answer (the API base worked out once), each
 * item one object literal in the schema's order. Spreading the record into a copy per layer and
 * rest-destructuring it cost a 50-model page about 0.4 ms of CPU, several times its JSON.stringify.
 */
export function summaryPresenter(c: Context): (model: ModelSummaryRecord) => z.infer<typeof ModelSummarySchema> {
  const models = `${apiBase(c)}/models/`
  return (model) => {
    const url = models + model.id
    return {
      id: model.id,
      name: model.name,
      description: model.description,
      creator: model.creator,
      source_url: model.source_url,
      license: model.license,
      has_thumbnail: model.has_thumbnail,
      analysing_files: model.analysing_files,
      created_at: model.created_at,
      updated_at: model.updated_at,
      url,
      thumbnail_url: model.has_thumbnail ? `${url}/thumbnail` : null,
      tags: model.tags,
      file_summary: model.file_summary as z.infer<typeof FileSummarySchema>,
    }
  }
}

export function presentDetail(c: Context, model: ModelDetailRecord): z.infer<typeof ModelDetailSchema> {
  return {
    ...summaryPresenter(c)(model),
    cover_file_id: model.cover_file_id,
    collections: model.collections.map((collection) => ({
      ...collection,
      url: `${apiBase(c)}/collections/${collection.id}`,
    })),
    files: model.files.map((file) => presentFile(c, file)),
  }
}

/** A query parameter that may be given once or repeated (`?tag=a&tag=b`). */
const repeatable = <T extends z.ZodType<string>>(item: T, description: string) =>
  z
    .union([item, z.array(item).max(20)])
    .optional()
    .transform((value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
    .openapi({ description, param: { style: 'form', explode: true } })

const instant = (description: string) =>
  z.iso
    .datetime({ offset: true })
    .optional()
    .transform((value) => (value === undefined ? undefined : new Date(value).toISOString()))
    .openapi({ description, example: '2026-01-31T00:00:00Z' })

/** Filters and sorting shared by the list and the export. */
export const modelFilterParams = {
  q: z.string().max(500).optional().openapi({
    description:
      'Full-text search over the model name, description, tags, file names and extracted metadata (slicer, printer model, filament type and name, G-code object names, 3MF title, designer and description, STEP header). Case and accents are ignored; punctuation separates words; every word must match the start of a word (`cal cub` finds "Calibration Cube"). Results keep the `sort` order (no relevance ranking, so paging is stable). A query without letters or digits matches everything.',
    example: 'benchy prusa',
  }),
  tag: repeatable(
    z.string().min(1).max(64),
    'Only models with this tag (any case). Repeat for models with all of them.',
  ),
  collection: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'Only models in the collection with this id (an unknown id matches nothing).' }),
  include_descendants: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true')
    .openapi({
      description:
        'With `collection`: `true` also lists the models of the collections inside it, at any depth (each model once). Default `false`: only the models put in the collection itself.',
    }),
  file_format: repeatable(
    z.enum(formats),
    'Only models with a file of this format. Repeat for any of several formats. (Named so because `format` chooses the export format.)',
  ),
  has_gcode: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true'))
    .openapi({ description: 'Only models with (`true`) or without (`false`) a G-code file.' }),
  created_from: instant('Created at or after this instant (ISO 8601 with offset).'),
  created_to: instant('Created before this instant.'),
  updated_from: instant('Updated at or after this instant.'),
  updated_to: instant('Updated before this instant.'),
  sort: z.enum(sortKeys).default('updated').openapi({
    description:
      '`name` (ignoring ASCII case), `created`, `updated` (last change: edit or new file) or `size` (bytes of all its files). Ties are broken by id.',
  }),
  order: z
    .enum(['asc', 'desc'])
    .optional()
    .openapi({ description: 'Default: `asc` for `name`, `desc` for the others (newest, largest first).' }),
}

interface FilterParams {
  q?: string | undefined
  tag: string[]
  collection?: string | undefined
  include_descendants: boolean
  file_format: string[]
  has_gcode?: boolean | undefined
  created_from?: string | undefined
  created_to?: string | undefined
  updated_from?: string | undefined
  updated_to?: string | undefined
  sort: SortKey
  order?: 'asc' | 'desc' | undefined
}

export function toModelQuery(params: FilterParams): ModelQuery {
  const filters: ModelFilters = {
    q: params.q,
    tags: params.tag,
    collection: params.collection,
    collectionDescendants: params.include_descendants,
    formats: params.file_format,
    hasGcode: params.has_gcode,
    createdFrom: params.created_from,
    createdTo: params.created_to,
    updatedFrom: params.updated_from,
    updatedTo: params.updated_to,
  }
  return { filters, sort: params.sort, order: params.order ?? (params.sort === 'name' ? 'asc' : 'desc') }
}
