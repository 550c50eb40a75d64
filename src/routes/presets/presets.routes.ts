import { z } from '@hono/zod-openapi'
import { filamentLimits, type NumberLimit, printerLimits, type TextLimit } from '../../core/presets/preset-limits.js'
import { maxImportBytes } from '../../core/presets/presets.js'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema } from '../common-schemas.js'
import { problemResponse } from '../problem.js'

const tags = ['Presets']
const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
})
const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { required: true, content: { 'application/json': { schema } } },
})
const common = {
  id: z.string(),
  source: z.string().openapi({ description: '`manual`, `prusaslicer` or `cura`.' }),
  settings: z.record(z.string(), z.string()).openapi({ description: 'Every imported setting, parents resolved.' }),
  created_at: z.string(),
  updated_at: z.string(),
}

/** A field's schema from its limit in core (`preset-limits.ts`), which the import keeps too. */
const nullableText = (limit: TextLimit) => z.string().max(limit.maxLength).nullable()
const nullableNumber = ({ min, minIncluded, max }: NumberLimit) =>
  (minIncluded ? z.number().min(min) : z.number().gt(min)).max(max).nullable()
const nameField = (limit: TextLimit) => z.string().trim().min(1).max(limit.maxLength)

const filamentFields = {
  name: nameField(filamentLimits.name),
  material: nullableText(filamentLimits.material).openapi({ example: 'PLA' }),
  vendor: nullableText(filamentLimits.vendor),
  color: nullableText(filamentLimits.color).openapi({ description: 'A colour name or `#rrggbb`.' }),
  diameter_mm: nullableNumber(filamentLimits.diameter_mm),
  density_g_cm3: nullableNumber(filamentLimits.density_g_cm3),
  nozzle_temperature_c: nullableNumber(filamentLimits.nozzle_temperature_c),
  bed_temperature_c: nullableNumber(filamentLimits.bed_temperature_c),
  cost_per_kg: nullableNumber(filamentLimits.cost_per_kg),
}
const printerFields = {
  name: nameField(printerLimits.name),
  vendor: nullableText(printerLimits.vendor),
  bed_x_mm: nullableNumber(printerLimits.bed_x_mm),
  bed_y_mm: nullableNumber(printerLimits.bed_y_mm),
  max_height_mm: nullableNumber(printerLimits.max_height_mm),
  nozzle_diameter_mm: nullableNumber(printerLimits.nozzle_diameter_mm),
  gcode_flavor: nullableText(printerLimits.gcode_flavor).openapi({ example: 'marlin2' }),
  firmware_provider: nullableText(printerLimits.firmware_provider).openapi({
    description: 'Which printer provider drives it (`moonraker`, `octoprint`, `prusalink`…).',
  }),
}

export const FilamentProfileSchema = z.object({ ...common, ...filamentFields }).openapi('FilamentProfile')
export const PrinterProfileSchema = z.object({ ...common, ...printerFields }).openapi('PrinterProfile')

const ImportResultSchema = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    items: z.array(z.object({ id: z.string(), name: z.string(), created: z.boolean() })),
    skipped: z.array(z.object({ name: z.string(), reasons: z.array(z.string()) })).openapi({
      description:
        'Profiles of the file that were not imported, each with what is out of range (the same limits as creating one by hand).',
    }),
  })
  .openapi('PresetImportResult')

/** A create body: `name` is required, every other field may be left out and is then null. */
type CreateShape<F extends Record<string, z.ZodType>> = {
  [K in keyof F]: K extends 'name' ? F[K] : z.ZodDefault<z.ZodOptional<F[K]>>
}

function createShapeOf<F extends Record<string, z.ZodType>>(fields: F): CreateShape<F> {
  // Object.fromEntries loses the per-key types that CreateShape states; the mapping itself is the proof.
  return Object.fromEntries(
    Object.entries(fields).map(([key, field]) => [key, key === 'name' ? field : field.optional().default(null)]),
  ) as CreateShape<F>
}

function crud<const P extends string, F extends Record<string, z.ZodType>>(
  kind: 'filament' | 'printer',
  path: P,
  schema: z.ZodType,
  fields: F,
  title: string,
  importNote: string,
) {
  const opName = kind === 'filament' ? 'FilamentProfile' : 'PrinterProfile'
  const createShape = createShapeOf(fields)
  const updateShape = z.object(fields).partial().shape
  return {
    list: defineRoute(allow('user', 'read'), {
      method: 'get',
      path,
      operationId: `list${opName}s`,
      tags,
      summary: `${title}s`,
      request: {
        query: z.object({ q: z.string().max(200).optional().openapi({ description: 'Part of the name.' }) }),
      },
      responses: { 200: json('By name (at most 1000).', z.object({ items: z.array(schema) })) },
    }),
    get: defineRoute(allow('user', 'read'), {
      method: 'get',
      path: `${path}/{id}`,
      operationId: `get${opName}`,
      tags,
      summary: `One ${title.toLowerCase()}`,
      request: { params: IdParamSchema },
      responses: { 200: json('The profile.', schema), 404: problemResponse('No such profile.') },
    }),
    create: defineRoute(allow('admin', 'manage'), {
      method: 'post',
      path,
      operationId: `create${opName}`,
      tags,
      summary: `Create a ${title.toLowerCase()}`,
      request: jsonBody(z.object(createShape).strict().openapi(`Create${opName}Request`)),
      responses: {
        201: json('Created.', schema),
        409: problemResponse('The name is taken (`name_taken`).'),
        422: problemResponse('A field is out of range.'),
      },
    }),
    update: defineRoute(allow('admin', 'manage'), {
      method: 'patch',
      path: `${path}/{id}`,
      operationId: `update${opName}`,
      tags,
      summary: `Change a ${title.toLowerCase()}`,
      request: {
        params: IdParamSchema,
        ...jsonBody(z.object(updateShape).strict().openapi(`Update${opName}Request`)),
      },
      responses: {
        200: json('Changed.', schema),
        404: problemResponse('No such profile.'),
        409: problemResponse('The name is taken (`name_taken`).'),
        422: problemResponse('A field is out of range.'),
      },
    }),
    remove: defineRoute(allow('admin', 'manage'), {
      method: 'delete',
      path: `${path}/{id}`,
      operationId: `delete${opName}`,
      tags,
      summary: `Delete a ${title.toLowerCase()}`,
      request: { params: IdParamSchema },
      responses: { 204: { description: 'Deleted.' }, 404: problemResponse('No such profile.') },
    }),
    import: defineRoute(
      allow('admin', 'manage'),
      {
        method: 'post',
        path: `${path}/import`,
        operationId: `import${opName}s`,
        tags,
        summary: `Import ${title.toLowerCase()}s`,
        description: `${importNote} The body is the file itself (any content type). Profiles with the same name are replaced. A profile whose values break the limits of creating one by hand (a name over 200 characters, a bed at 5000 °C, a negative nozzle temperature) is not imported and is listed under \`skipped\` with the reasons; nothing is clamped. A file whose every profile is refused answers 422 \`preset_out_of_range\` and stores nothing.`,
        request: {
          body: {
            required: true,
            content: { 'text/plain': { schema: z.string() }, 'application/octet-stream': { schema: z.string() } },
          },
        },
        responses: {
          200: json('What was created and updated.', ImportResultSchema),
          413: problemResponse('Larger than 32 MiB (`payload_too_large`); a chunked body is cut off there.'),
          422: problemResponse(
            'Not a bundle of this kind (`unsupported_preset_file`), it holds no profile, or every profile is out of range (`preset_out_of_range`).',
          ),
        },
      },
      { maxBodyBytes: maxImportBytes },
    ),
  }
}

export const filamentRoutes = crud(
  'filament',
  '/api/v1/filament-profiles',
  FilamentProfileSchema,
  filamentFields,
  'Filament profile',
  'A PrusaSlicer `.ini` bundle (its `[filament:…]` sections, `inherits` resolved, `*abstract*` ones skipped) or a Cura `.xml.fdm_material` file.',
)
export const printerRoutes = crud(
  'printer',
  '/api/v1/printer-profiles',
  PrinterProfileSchema,
  printerFields,
  'Printer profile',
  'A PrusaSlicer `.ini` bundle (its `[printer:…]` sections, `inherits` resolved, `*abstract*` ones skipped).',
)

export const filePresetsRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/files/{id}/presets',
  operationId: 'getFilePresets',
  tags,
  summary: 'The presets a G-code file was sliced with',
  description:
    'Matches the filament and printer profile names the slicer wrote into the G-code (`filament_settings_id`, `printer_settings_id`) against stored profiles, by exact name.',
  request: { params: IdParamSchema },
  responses: {
    200: json(
      'Names found in the file and the matching profiles.',
      z
        .object({
          file_id: z.string(),
          filament_names: z.array(z.string()),
          printer_names: z.array(z.string()),
          filament_profiles: z.array(FilamentProfileSchema),
          printer_profiles: z.array(PrinterProfileSchema),
        })
        .openapi('FilePresets'),
    ),
    404: problemResponse('No such file.'),
  },
})
