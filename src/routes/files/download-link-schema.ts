import { z } from '@hono/zod-openapi'

const slicerLink = (slicer: string) =>
  z
    .string()
    .optional()
    .openapi({ description: `Opens the file in ${slicer}; absent when it does not open this format.` })

export const DownloadLinkSchema = z
  .object({
    url: z.string().openapi({
      description:
        "Absolute URL serving this one file without a bearer token until `expires_at`; it ends in a file name with the format's extension.",
      example:
        'https://vault.example.org/api/v1/signed/files/0193a4f2-7c1e-7d3a-9b8e-2f4c6d8e0a1b/eyJhbGci…/Benchy.3mf',
    }),
    expires_at: z.string().openapi({ format: 'date-time' }),
    expires_in: z.number().int().openapi({ description: 'Seconds the link works.', example: 900 }),
    slicer_links: z
      .object({
        orcaslicer: slicerLink('OrcaSlicer (`orcaslicer://open?file=…`): STL, 3MF, OBJ, STEP'),
        bambustudio: slicerLink('Bambu Studio on Windows and Linux (`bambustudio://open?file=…`): 3MF only'),
        bambustudio_macos: slicerLink('Bambu Studio on macOS (`bambustudioopen://…`): 3MF only'),
        cura: slicerLink('UltiMaker Cura (`cura://open?file=…`): STL, 3MF, OBJ, G-code'),
        superslicer: slicerLink(
          "SuperSlicer (`prusaslicer://open?file=…`, PrusaSlicer's scheme: PrusaSlicer itself refuses the link): STL, 3MF, OBJ, STEP",
        ),
        elegooslicer: slicerLink('ElegooSlicer (`elegooslicer://open?file=…`): STL, 3MF, OBJ, STEP'),
        crealityprint: slicerLink('Creality Print (`crealityprintlink://open?file=…`): STL, 3MF, OBJ, STEP'),
      })
      .openapi({
        description:
          'The `url` wrapped for each desktop slicer that opens this format. PrusaSlicer has none: it downloads only from printables.com, thingiverse.com and cults3d.com.',
      }),
  })
  .openapi('DownloadLink')
