import { type RouteConfig, z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema } from '../common-schemas.js'
import { multipartFileBody } from '../ingest/ingest.routes.js'
import { OctoPrintErrorSchema, withOctoPrintErrors } from './octoprint-errors.js'

const tags = ['OctoPrint compatibility']

/** Where a slicer's "host" points: the vault alone, or one registered printer through the vault. */
interface ShimBase {
  prefix: string
  operationSuffix: string
  request: Pick<NonNullable<RouteConfig['request']>, 'params'>
  about: string
}

export const vaultBase = {
  prefix: '/octoprint',
  operationSuffix: '',
  request: {},
  about: 'The vault alone: uploads are stored in the vault; `print=true` is refused (409), as no printer is named.',
} satisfies ShimBase

const printerBase = {
  prefix: '/octoprint/printers/{id}',
  operationSuffix: 'ForPrinter',
  request: { params: IdParamSchema },
  about:
    'One registered printer through the vault: uploads are stored in the vault, and `print=true` sends the file to the printer with the safe send of `POST /api/v1/printers/{id}/send` (check, upload, check, start, confirm), recording the dispatch.',
} satisfies ShimBase

const shapesNote =
  'Answers follow OctoPrint’s REST API (the subset PrusaSlicer, SuperSlicer, OrcaSlicer, Bambu Studio and the Cura OctoPrint Connection plugin use), not this API’s conventions: errors are `{"error": "…"}`, and the API key goes in `X-Api-Key` (or `Authorization: Bearer`).'

const VersionSchema = z
  .object({
    api: z.string().openapi({ description: 'OctoPrint API version; slicers require the field.', example: '0.1' }),
    server: z.string().openapi({ description: 'The OctoPrint version whose API is followed.', example: '1.5.0' }),
    text: z.string().openapi({
      description: 'Starts with `OctoPrint`, which PrusaSlicer and OrcaSlicer check before uploading.',
      example: 'OctoPrint (model-vault 0.1.0)',
    }),
  })
  .openapi('OctoPrintVersion')

const ServerSchema = z
  .object({ version: z.string().openapi({ example: '1.5.0' }), safemode: z.null() })
  .openapi('OctoPrintServer')

const SettingsSchema = z
  .object({
    feature: z.object({ sdSupport: z.boolean(), temperatureGraph: z.boolean() }),
    plugins: z.object({}),
  })
  .openapi('OctoPrintSettings')

const UploadResultSchema = z
  .object({
    done: z.boolean().openapi({ description: 'Always true: the file is stored when this answers.' }),
    files: z.object({
      local: z.object({
        name: z.string().openapi({ description: 'The name the file has in the vault.', example: 'Shape-Box.gcode' }),
        origin: z.literal('local'),
        refs: z.object({
          resource: z.string().openapi({ description: 'The stored file in the vault API.' }),
          download: z.string().openapi({ description: 'Its bytes.' }),
        }),
      }),
    }),
    effectiveSelect: z.boolean().openapi({ description: 'True when the file was sent to the printer.' }),
    effectivePrint: z.boolean().openapi({ description: 'True when the printer was seen printing it.' }),
    vault: z
      .object({
        duplicate: z.boolean().openapi({ description: 'The vault already held these bytes; nothing new was stored.' }),
        file_id: z.string(),
        model_id: z.string(),
        dispatch_id: z
          .string()
          .nullable()
          .openapi({ description: 'The dispatch record of the print, if one was asked.' }),
      })
      .openapi({ description: 'What the vault did, beyond OctoPrint’s fields.' }),
  })
  .openapi('OctoPrintUploadResult')

const json = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
})

const refusal = (description: string) => json(description, OctoPrintErrorSchema)

const unknownPrinter = (base: ShimBase) => (base === printerBase ? { 404: refusal('No printer has this id.') } : {})

interface ShimOperation<M extends RouteConfig['method'], Res extends RouteConfig['responses']> {
  method: M
  path: string
  operationId: string
  summary: string
  description: string
  responses: Res
}

/**
 * One operation of the shim under `base`, behind the same authentication as every route. Typed
 * by its method and answers alone: the handlers serve both bases, so they read the printer id
 * (validated by the route's schema) from the path themselves.
 */
function shimRoute<M extends RouteConfig['method'], Res extends RouteConfig['responses']>(
  base: ShimBase,
  operation: ShimOperation<M, Res>,
  options: { upload?: true; request?: RouteConfig['request'] } = {},
) {
  // Uploading needs `upload` (printing, decided by a form field, also `print`: see the handler); the
  // slicer's "Test" and the rest work with any key, so a hook's upload-only key passes the test.
  const route = defineRoute(
    options.upload ? allow('user', 'upload') : allow('user', 'any'),
    {
      ...operation,
      path: `${base.prefix}${operation.path}`,
      operationId: `${operation.operationId}${base.operationSuffix}`,
      tags,
      description: `${operation.description}\n\n${base.about}\n\n${shapesNote}`,
      request: { ...base.request, ...options.request },
      responses: { ...operation.responses, ...unknownPrinter(base) },
    },
    options.upload ? { upload: true } : {},
  )
  return withOctoPrintErrors(route) as Omit<RouteConfig, 'request'> & { method: M; path: string; responses: Res }
}

function shimRoutes(base: ShimBase) {
  return {
    version: shimRoute(base, {
      method: 'get',
      path: '/api/version',
      operationId: 'octoPrintVersion',
      summary: 'OctoPrint: version (the slicer’s “Test”)',
      description:
        'What PrusaSlicer, SuperSlicer and OrcaSlicer fetch for “Test” and before every upload: they need `api` and a `text` that starts with `OctoPrint`.',
      responses: { 200: json('The version.', VersionSchema) },
    }),
    server: shimRoute(base, {
      method: 'get',
      path: '/api/server',
      operationId: 'octoPrintServer',
      summary: 'OctoPrint: server',
      description: 'The server version, never in safe mode.',
      responses: { 200: json('The server.', ServerSchema) },
    }),
    settings: shimRoute(base, {
      method: 'get',
      path: '/api/settings',
      operationId: 'octoPrintSettings',
      summary: 'OctoPrint: settings (minimal)',
      description: 'What the Cura OctoPrint Connection plugin reads on connecting: no SD card, no plugins.',
      responses: { 200: json('The settings.', SettingsSchema) },
    }),
    upload: shimRoute(
      base,
      {
        method: 'post',
        path: '/api/files/local',
        operationId: 'octoPrintUpload',
        summary: 'OctoPrint: upload a file (“Send” / “Send and print”)',
        description:
          'Streams the multipart field `file` into the vault as `POST /api/v1/ingest` does (hashed, deduplicated, bounded by `VAULT_MAX_UPLOAD_BYTES`), under the file name of the part. `print` (`true`, `yes`, `y`, `1`) asks for the print. `select` is accepted and has no effect, as in Moonraker’s shim; so is `path` (the folder part of the name typed in the slicer), as the vault keeps no folders. A `.zip` is stored as one file, not unpacked, as OctoPrint keeps what a slicer sends (unpack zips through `POST /api/v1/ingest`). A duplicate is fine: the answer names the file the vault already held. Every refusal after the file arrived (a 409 or 502 of the print) says that the file was saved in the vault.',
        responses: {
          201: json('Stored (and, when asked, printing: confirmed).', UploadResultSchema),
          400: refusal('The multipart body is malformed or was cut off. Nothing was stored.'),
          409: refusal(
            'Stored in the vault, not printed: the vault base has no printer (`no_printer`), or the printer was not ready (`printer_not_ready`, nothing sent) or stopped being ready.',
          ),
          413: refusal('The file is larger than `VAULT_MAX_UPLOAD_BYTES`. Nothing was stored.'),
          422: refusal(
            'No file, an empty file or a refused archive (nothing stored); or `print=true` for a file that is not G-code (stored, not printed).',
          ),
          415: refusal('Not `multipart/form-data`.'),
          502: refusal(
            'Stored in the vault; the printer let the print down (upload failed, start refused, not confirmed).',
          ),
        },
      },
      {
        upload: true,
        request: multipartFileBody('The file; the file name of its part names it.', {
          print: { type: 'string', description: '`true` (or `yes`, `y`, `1`) to print it: on a printer base only.' },
          select: { type: 'string', description: 'Accepted; no effect.' },
          path: { type: 'string', description: 'Accepted; no effect (the vault keeps no folders).' },
          model_id: {
            type: 'string',
            description:
              'A vault extension: the model the file joins, as with `POST /api/v1/ingest`; an id that names no model is refused (422).',
          },
        }),
      },
    ),
  }
}

export const vaultRoutes = shimRoutes(vaultBase)
export const printerRoutes = shimRoutes(printerBase)
