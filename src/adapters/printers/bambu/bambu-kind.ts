import { z } from 'zod'
import type { PrinterProviderKind } from '../../../core/printers/provider-kind.js'
import { secretField } from '../credential-fields.js'
import { parseBambuAddress } from './bambu-address.js'
import type { BambuPrinters } from './bambu-provider.js'

const needed = 'a Bambu Lab printer needs it'

/** Bambu Lab printers in LAN mode, over `printers`' pool of MQTT sessions (closed by the runtime). */
export const bambu = (printers: BambuPrinters): PrinterProviderKind => ({
  name: 'bambu',
  label: 'Bambu Lab (LAN mode)',
  address: {
    description:
      "The printer's IP address or host name (its network settings on its screen); bambu://host?mqtt_port=8883&ftp_port=990 for other ports",
    example: '192.168.1.40',
    check: (address) => {
      const parsed = parseBambuAddress(address)
      return typeof parsed === 'string' ? parsed : null
    },
  },
  credentials: z.strictObject({
    serial: z
      .string({ error: needed })
      .regex(/^[A-Za-z0-9]{6,32}$/, 'letters and digits only, as on the printer')
      .meta({
        title: 'Serial number',
        description: "On the printer's screen under its device settings; it names the printer's MQTT topics.",
        examples: ['01S00C123456789'],
      }),
    access_code: secretField(
      'Access code',
      "The LAN access code on the printer's screen (Settings → WLAN or LAN Only); it changes when LAN Only or Developer Mode is switched.",
      needed,
    ),
  }),
  slicerHostTypes: [],
  controls: ['pause', 'resume', 'cancel'],
  scripts: {
    runs: true,
    detail:
      'The MQTT `gcode_line` command hands the lines to the printer, which answers with its result; recent firmware takes it only in LAN Only with Developer Mode.',
  },
  connect: printers.provider,
})
