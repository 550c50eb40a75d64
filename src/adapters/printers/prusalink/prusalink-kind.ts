import { z } from 'zod'
import type { PrinterProviderKind } from '../../../core/printers/provider-kind.js'
import { apiKeyField, secretField } from '../credential-fields.js'
import { checkHttpAddress } from '../http-address.js'
import { createPrusaLinkProvider } from './prusalink-provider.js'

export const prusalink: PrinterProviderKind = {
  name: 'prusalink',
  label: 'PrusaLink',
  address: {
    description: "The printer's address on the network",
    example: 'http://192.168.1.20',
    check: checkHttpAddress,
  },
  credentials: z.strictObject({
    username: z
      .string()
      .min(1)
      .max(200)
      .meta({
        title: 'Username',
        description: "The printer's PrusaLink user, usually maker (Settings → Network on its screen).",
      })
      .optional(),
    password: secretField('Password', "The PrusaLink password shown on the printer's screen.").optional(),
    api_key: apiKeyField('Older PrusaLink firmware only: its API key instead of a username and password.').optional(),
  }),
  slicerHostTypes: ['prusalink'],
  controls: ['pause', 'resume', 'cancel'],
  scripts: {
    runs: false,
    detail: 'PrusaLink has no endpoint that runs G-code: its API uploads, starts, pauses and stops files only.',
  },
  connect: createPrusaLinkProvider,
}
