import { z } from 'zod'
import type { PrinterProviderKind } from '../../../core/printers/provider-kind.js'
import { apiKeyField } from '../credential-fields.js'
import { checkHttpAddress } from '../http-address.js'
import { createOctoPrintProvider } from './octoprint-provider.js'

export const octoprint: PrinterProviderKind = {
  name: 'octoprint',
  label: 'OctoPrint',
  address: { description: "OctoPrint's base URL", example: 'http://octopi.local', check: checkHttpAddress },
  credentials: z.strictObject({
    api_key: apiKeyField(
      "An application key or a user's API key (OctoPrint's Settings → Application Keys). Sent as X-Api-Key.",
    ).optional(),
  }),
  slicerHostTypes: ['octoprint'],
  controls: ['pause', 'resume', 'cancel'],
  scripts: { runs: true, detail: 'POST /api/printer/command queues the lines on the printer’s serial link.' },
  connect: createOctoPrintProvider,
}
