import type { OpenAPIHono } from '@hono/zod-openapi'
import type { PrinterProviderKind } from '../../core/printers/provider-kind.js'
import { credentialSchemes } from '../access.js'
import type { AppEnv } from '../app-env.js'
import { withPrinterProviders } from '../printers/provider-document.js'
import { apiDescription } from './api-description.js'

/**
 * The OpenAPI 3.1 document of `app` (an app built by `createApp`), for a vault reachable at
 * `serverUrl` that offers `printerProviders`. Pure: `/openapi.json` serves it and
 * `npm run generate:api` turns it into the web UI's types without a running server.
 */
export function buildOpenApiDocument(
  app: OpenAPIHono<AppEnv>,
  options: { version: string; serverUrl: string; printerProviders: readonly PrinterProviderKind[] },
) {
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'model-vault API',
      version: options.version,
      description: apiDescription,
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    servers: [{ url: options.serverUrl, description: 'This vault' }],
    security: credentialSchemes,
    tags: [
      { name: 'Health', description: 'Service identity and component readiness.' },
      { name: 'Authentication', description: 'Sign in, refresh and sign out.' },
      { name: 'Account', description: 'The signed-in user.' },
      { name: 'API keys', description: 'Keys for scripts and slicer hooks (Settings → Access).' },
      { name: 'User administration', description: 'Superusers manage accounts.' },
      {
        name: 'Ingest',
        description: 'Put files into the vault: hashed, deduplicated, read and attached to a model.',
      },
      { name: 'Files', description: 'Stored files: metadata, download, thumbnails.' },
      {
        name: 'Analysis',
        description: 'The background queue that renders thumbnails and previews after uploads have answered.',
      },
      { name: 'Models', description: 'Models and their files.' },
      { name: 'Collections', description: 'Named groups of models; a model can be in several.' },
      { name: 'Tags', description: 'Labels on models, set per model.' },
      {
        name: 'Backups',
        description: 'Full-install archives in the backup directory and an optional S3 bucket (admin).',
      },
      {
        name: 'Maintenance',
        description: 'Garbage collection of stored files nothing refers to (superuser).',
      },
      {
        name: 'Printers',
        description: 'Registered printers: live status, diagnostics, sending G-code and the dispatch record.',
      },
      {
        name: 'Print history',
        description:
          "Every print run of a model or a printer: outcome, times, filament, the user's verdict, note and photo, success rate and CSV export.",
      },
      {
        name: 'Events',
        description: 'A live stream of what happens to printers and sends (server-sent events), resumable by event id.',
      },
      {
        name: 'Webhooks',
        description:
          'Your notifications: events POSTed to a URL as signed JSON, to ntfy or to Discord, with retries and a delivery log.',
      },
      {
        name: 'Presets',
        description: 'Filament and printer profiles, imported from PrusaSlicer bundles and Cura material files.',
      },
      {
        name: 'OctoPrint compatibility',
        description:
          'An upload target for slicers that send to an “OctoPrint” host (PrusaSlicer, SuperSlicer, OrcaSlicer, Bambu Studio, Cura’s OctoPrint Connection plugin): set the host to `<vault>/octoprint` (store in the vault) or `<vault>/octoprint/printers/<id>` (store, and print through the vault’s safe send), with a vault API key. Shapes follow OctoPrint’s REST API, not this API’s conventions.',
      },
    ],
  })
  return withPrinterProviders(document, options.printerProviders)
}
