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
  return threeMfPackage(parts.join(''))
}

/**
 * A 3MF whose build places one triangle through `count` components, each with its own
 * transform: the reader keeps every placement on its heap, one small object each, the kind of
 * growth a reader's memory budget ends cleanly (nodejs/node#47224: one huge allocation past the
 * limit can abort the process instead).
 */
export function manyPlacementsThreeMf(count: number): Uint8Array {
  const parts = [
    '<?xml version="1.0"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02">',
    '<resources><object id="1" type="model"><mesh><vertices><vertex x="0" y="0" z="0"/><vertex x="1" y="0" z="0"/>',
    '<vertex x="0" y="1" z="0"/></vertices><triangles><triangle v1="0" v2="1" v3="2"/></triangles></mesh></object>',
    '<object id="2" type="model"><components>',
  ]
  for (let i = 0; i < count; i++)
    parts.push(`<component objectid="1" transform="1 0 0 0 1 0 0 0 1 ${i % 1000} ${i} 0"/>`)
  parts.push('</components></object></resources><build><item objectid="2"/></build></model>')
  return threeMfPackage(parts.join(''))
}

/** A minimal 3MF package around one model part. */
function threeMfPackage(model: string): Uint8Array {
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
    '3D/3dmodel.model': strToU8(model),
  })
}
