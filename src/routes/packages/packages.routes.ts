import { z } from '@hono/zod-openapi'
import { allow, defineRoute } from '../access.js'
import { IdParamSchema, idField } from '../common-schemas.js'
import { problemResponse } from '../problem.js'
import { binaryContent, header } from '../response-docs.js'
import { signedLinkParams } from '../signed/signed.routes.js'

const tags = ['Models']

/** Most models one request may package: the datapackages of all of them are built before the first byte. */
const maxModelsPerPackage = 500

const packageHeaders = {
  'Content-Length': header(
    'The exact size of the zip, known before it is made, so browsers show progress.',
    '11290517',
  ),
  'Content-Disposition': header(
    "The download name: the model's slug (or `model-vault-packages-<date>` for several models) and `.zip`.",
    `attachment; filename="3d-benchy.zip"; filename*=UTF-8''3d-benchy.zip`,
  ),
  'Cache-Control': header('Not stored by caches: the package follows the model.', 'no-store'),
}

const layout = [
  'The zip holds `datapackage.json` first, then the parts (meshes, G-code, CAD and other files) at the root under their',
  'original names, images under `images/` and documents under `documents/`. A name used twice in a folder (compared',
  'regardless of case, as Windows and macOS unpack them) gets ` (2)`, ` (3)` before its extension; a part cannot take',
  'the names `datapackage.json`, `images` or `documents`. Entries are stored, not compressed (meshes and 3MFs barely',
  'compress), with UTF-8 names and ZIP64 past 4 GiB.',
  '',
  '`datapackage.json` is a [Frictionless Data Package](https://specs.frictionlessdata.io/data-package/) (v1):',
  '`name` (the slug of the model name: `a-z0-9_-`, `model` when nothing is left), `title` (the name), `description`,',
  '`keywords` (the tags), `created` (`created_at`) and one resource per file: `name` (a unique slug), `path`, `format`,',
  '`mediatype`, `bytes`, `hash` (`sha256:<hex>`) and `model_vault` (`role`, `original_name`, `metadata`: what the',
  'vault read from the file). `model_vault` at the top holds `version` (1), `model_id`, `collections` (names) and',
  '`exported_at`. Uploading the zip to a vault reads it all back.',
  '',
  'Example `datapackage.json`:',
  '```json',
  JSON.stringify(
    {
      profile: 'data-package',
      name: '3d-benchy',
      title: '3D Benchy',
      description: 'The calibration boat.',
      keywords: ['boat', 'calibration'],
      created: '2026-11-25T10:00:00.000Z',
      resources: [
        {
          name: 'benchy-stl',
          path: 'Benchy.stl',
          format: 'stl',
          mediatype: 'model/stl',
          bytes: 11285384,
          hash: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
          model_vault: { role: 'part', original_name: 'Benchy.stl', metadata: { mesh: { triangles: 225706 } } },
        },
      ],
      model_vault: {
        version: 1,
        model_id: '0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b',
        collections: ['Calibration'],
        exported_at: '2026-11-25T18:00:00.000Z',
      },
    },
    null,
    2,
  ),
  '```',
  '',
  'The zip streams as it is read: one stored file at a time, only as fast as the client takes it, so a package of any',
  'size holds no more than a chunk in memory. `Content-Length` is exact, so a cut-off download is told apart. A model',
  "deleted while its package downloads ends the stream with an error: the connection is cut before the zip's",
  'directory, and every unzip tool reports the archive as broken rather than short.',
].join('\n')

export const getModelPackageRoute = defineRoute(allow('user', 'read'), {
  method: 'get',
  path: '/api/v1/models/{id}/package',
  operationId: 'getModelPackage',
  tags,
  summary: 'Download a model as a zip with a datapackage.json',
  description: `Everything of the model in one zip, named \`<slug>.zip\`.\n\n${layout}`,
  request: { params: IdParamSchema },
  responses: {
    200: { description: 'The package.', headers: packageHeaders, content: binaryContent('application/zip') },
    404: problemResponse('No such model.'),
  },
})

export const packageModelsRoute = defineRoute(allow('user', 'read'), {
  method: 'post',
  path: '/api/v1/models/package',
  operationId: 'packageModels',
  tags,
  summary: 'Download several models as one zip',
  description: [
    `One zip with a folder per model, in the order of \`ids\` (1-${maxModelsPerPackage}; an id given twice is packaged`,
    "once), named `model-vault-packages-<YYYY-MM-DD>.zip`. Each folder is named after the slug of its model's name",
    "(`-2`, `-3` added when two models share one) and is laid out as a single model's package (`GET",
    '/api/v1/models/{id}/package`). An unknown id answers 422 naming it (in `errors`, by its place in `ids`) and',
    'nothing is sent.',
    '',
    'A POST, because hundreds of ids do not fit in a URL, so a browser cannot follow it as a link: fetch it with the',
    'bearer token and save the answer. For one model, POST /api/v1/models/{id}/package-link gives a link a browser can',
    'follow.',
    '',
    layout,
  ].join('\n'),
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              ids: z
                .array(idField())
                .min(1)
                .max(maxModelsPerPackage)
                .openapi({ description: `The models to package: 1-${maxModelsPerPackage} ids.` }),
            })
            .strict()
            .openapi('PackageModelsRequest', {
              example: { ids: ['0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b', '0193a4f2-9d20-7b11-8c3e-6a2b4c6d8e0f'] },
            }),
        },
      },
    },
  },
  responses: {
    200: { description: 'The package.', headers: packageHeaders, content: binaryContent('application/zip') },
    422: problemResponse(
      `No ids, more than ${maxModelsPerPackage}, an unknown field, or ids of no model (\`validation_failed\`, each in \`errors\`).`,
    ),
  },
})

export const createPackageLinkRoute = defineRoute(allow('user', 'read'), {
  method: 'post',
  path: '/api/v1/models/{id}/package-link',
  operationId: 'createPackageLink',
  tags,
  summary: "A short-lived signed link to a model's package, for a browser to download it itself",
  description: [
    "Signs a link that serves this model's package (as `GET /api/v1/models/{id}/package` does) to whoever holds it,",
    "without a bearer token, for 15 minutes (`VAULT_DOWNLOAD_LINK_TTL_S`), like a file's download link. A browser",
    'cannot send the bearer token with a plain link, and fetching the zip in a page would hold all of it in memory:',
    'following this link, the browser downloads the zip itself, to disk, with its own progress. The URL is absolute',
    "(`VAULT_PUBLIC_URL` when set, else this request's origin) and ends in `<slug>.zip`. The token is signed for",
    "downloads only and for this one package: it is refused as a bearer token, on a file's link and on another",
    "model's package. Signing out does not revoke a link already made; it expires on its own.",
  ].join(' '),
  request: { params: IdParamSchema },
  responses: {
    200: {
      description: 'The signed link.',
      content: {
        'application/json': {
          schema: z
            .object({
              url: z.string().openapi({
                description: "Absolute URL serving the model's package without a bearer token until `expires_at`.",
                example:
                  'https://vault.example.org/api/v1/signed/packages/0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b/eyJhbGci…/3d-benchy.zip',
              }),
              expires_at: z.string().openapi({ format: 'date-time' }),
              expires_in: z.number().int().openapi({ description: 'Seconds the link works.', example: 900 }),
            })
            .openapi('PackageLink'),
        },
      },
    },
    404: problemResponse('No such model.'),
  },
})

const SignedPackageParamsSchema = signedLinkParams('POST /api/v1/models/{id}/package-link', {
  description: 'The name browsers save the download under; the vault ignores it.',
  example: '3d-benchy.zip',
})

export const downloadSignedPackageRoute = defineRoute('public', {
  method: 'get',
  path: '/api/v1/signed/packages/{id}/{token}/{name}',
  operationId: 'downloadSignedPackage',
  tags,
  summary: "Download a model's package through a signed link",
  description: [
    'The URL POST /api/v1/models/{id}/package-link gives: no bearer token, the signed token in the path. It serves the',
    "model's package, made when the link is followed, until the token expires. Refusals are decided from the token",
    'alone: an expired link answers 403 `download_link_expired`; a token that is not one the vault signed for downloads',
    '403 `download_link_invalid`; a valid token for a file or for another model 403 `download_link_other_model`;',
    'a link made by a user who has since been disabled or deleted 403 `download_link_revoked`.',
    '',
    layout,
  ].join('\n'),
  request: { params: SignedPackageParamsSchema },
  responses: {
    200: { description: 'The package.', headers: packageHeaders, content: binaryContent('application/zip') },
    403: problemResponse(
      'The link has expired (`download_link_expired`), is not valid (`download_link_invalid`), is not for this package (`download_link_other_model`) or its maker is disabled or deleted (`download_link_revoked`).',
    ),
    404: problemResponse('The model of this link was deleted since the link was made.'),
  },
})
