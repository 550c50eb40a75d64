import { z } from '@hono/zod-openapi'
import { defineRoute } from '../access.js'
import { idField } from '../common-schemas.js'
import { fileBytesDescription, fileBytesResponses } from '../files/files.routes.js'
import { problemResponse } from '../problem.js'

/** The path parameters of a signed link: what it serves, its token (made by `linkRoute`) and a name the vault ignores. */
export const signedLinkParams = (linkRoute: string, name: { description: string; example: string }) =>
  z.object({
    id: idField().openapi({ param: { name: 'id', in: 'path' } }),
    token: z.string().openapi({
      param: { name: 'token', in: 'path' },
      description: `The signed token from ${linkRoute}.`,
      example: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmaWxlIn0.c2lnbmF0dXJl',
    }),
    name: z.string().openapi({ param: { name: 'name', in: 'path' }, ...name }),
  })

const SignedFileParamsSchema = signedLinkParams('POST /api/v1/files/{id}/download-link', {
  description: 'The file name slicers save the download under and read the format from; the vault ignores it.',
  example: 'Benchy.3mf',
})

export const downloadSignedFileRoute = defineRoute('public', {
  method: 'get',
  path: '/api/v1/signed/files/{id}/{token}/{name}',
  operationId: 'downloadSignedFile',
  tags: ['Files'],
  summary: 'Download a file through a signed link (open in slicer)',
  description: [
    'The URL a slicer is given: no bearer token, the signed token in the path. It serves the one file the token',
    'was signed for, until the token expires (15 minutes unless `VAULT_DOWNLOAD_LINK_TTL_S` says otherwise);',
    'every refusal is decided from the token and its maker alone, so it says nothing about other files.',
    'An expired link answers 403 `download_link_expired`; a token that is not one the vault signed for downloads',
    '(altered, truncated, an access token, signed with a key no longer configured) 403 `download_link_invalid`;',
    'a valid token used on another file id 403 `download_link_other_file`; a link made by a user who has since been',
    'disabled or deleted 403 `download_link_revoked` (for as long as they stay disabled). `HEAD` answers the same headers.',
    fileBytesDescription,
  ].join(' '),
  request: { params: SignedFileParamsSchema },
  responses: {
    ...fileBytesResponses,
    403: problemResponse(
      'The link has expired (`download_link_expired`), is not valid (`download_link_invalid`), is for another file (`download_link_other_file`) or its maker is disabled or deleted (`download_link_revoked`).',
    ),
    404: problemResponse('The file of this link was deleted since the link was made.'),
  },
})
