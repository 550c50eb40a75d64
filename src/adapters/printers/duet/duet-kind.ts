import { z } from 'zod'
import type { PrinterProviderKind } from '../../../core/printers/provider-kind.js'
import { secretField } from '../credential-fields.js'
import { checkHttpAddress } from '../http-address.js'
import { createDuetProviders } from './duet-provider.js'

/** Duet boards running RepRapFirmware 3 in standalone mode; a session per printer is kept between calls. */
export const duet = (): PrinterProviderKind => ({
  name: 'duet',
  label: 'Duet (RepRapFirmware)',
  address: {
    description: "The board's address on the network",
    example: 'http://duet3.local',
    check: checkHttpAddress,
  },
  credentials: z.strictObject({
    password: secretField(
      'Password',
      'Only when the board has one (M551 in its config.g); Duet Web Control asks for the same.',
    ).optional(),
  }),
  slicerHostTypes: ['duet'],
  controls: ['pause', 'resume', 'cancel'],
  scripts: { runs: true, detail: 'rr_gcode queues the lines; an `Error:` in rr_reply refuses them.' },
  connect: createDuetProviders(),
})
