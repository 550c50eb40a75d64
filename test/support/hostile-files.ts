import { strToU8, zipSync } from 'fflate'

/**
 * A 3MF of one `side` × `side` grid mesh (2·side² triangles), a few MB: reading it, measuring
 * it and rendering its thumbnail takes seconds of CPU, much of it in long synchronous stretches.
 * Shared by the off-thread ingest tests and `scripts/bench/extract-off-thread.ts`.
 */
export function gridThreeMf(side: number): Uint8Array {
  const parts = [
    '<?xml version="1.0"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">',
    '<resources><object id="1" type="model"><mesh><vertices>',
  ]
  for (let i = 0; i <= side; i++) {
    for (let j = 0; j <= side; j++) parts.push(`<vertex x="${i}" y="${j}" z="${(i * j) % 7}"/>`)
  }
  parts.push('</vertices><triangles>')
  const id = (i: number, j: number) => i * (side + 1) + j
  for (let i = 0; i < side; i++) {
    for (let j = 0; j < side; j++) {
      parts.push(
        `<triangle v1="${id(i, j)}" v2="${id(i + 1, j)}" v3="${id(i, j + 1)}"/>`,
        `<triangle v1="${id(i + 1, j)}" v2="${id(i + 1, j + 1)}" v3="${id(i, j + 1)}"/>`,
      )
    }
  }
  parts.push('</triangles></mesh></object></resources><build><item objectid="1"/></build></model>')
  return zipSync({
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/></Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/>' +
        '</Relationships>',
    ),
    '3D/3dmodel.model': strToU8(parts.join('')),
  })
}

/**
 * An OBJ naming `count` distinct objects of `nameBytes` characters each (and one triangle):
 * the reader keeps every name on its heap. Long names fill the heap with many small strings
 * rather than one huge table, which is the kind of growth Node turns into a worker's clean
 * out-of-memory exit (nodejs/node#47224: one huge allocation past the limit can abort the process).
 */
export function manyNamesObj(count: number, nameBytes = 4096): string {
  const filler = 'n'.repeat(nameBytes)
  const lines = ['v 0 0 0', 'v 1 0 0', 'v 0 1 0', 'f 1 2 3']
  for (let i = 0; i < count; i++) lines.push(`o ${i}-${filler}`)
  return `${lines.join('\n')}\n`
}
