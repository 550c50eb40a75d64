import { z } from 'zod'
import type { PrinterProviderKind } from '../../../core/printers/provider-kind.js'
import { apiKeyField } from '../credential-fields.js'
import { checkHttpAddress } from '../http-address.js'
import { createMoonrakerProvider } from './moonraker-provider.js'

export const moonraker: PrinterProviderKind = {
  name: 'moonraker',
  label: 'Moonraker (Klipper)',
  address: { description: "Moonraker's API base URL", example: 'http://voron.local:7125', check: checkHttpAddress },
  credentials: z.strictObject({
    api_key: apiKeyField(
      "Only when Moonraker's [authorization] section asks for one: its API key (Mainsail or Fluidd show it). Sent as X-Api-Key.",
    ).optional(),
  }),
  slicerHostTypes: ['moonraker', 'klipper'],
  controls: ['pause', 'resume', 'cancel'],
  scripts: {
    runs: true,
    detail: 'POST /printer/gcode/script, which answers once Klipper has run the script; an unknown macro is refused.',
  },
  connect: createMoonrakerProvider,
}
