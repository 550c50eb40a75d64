export interface CampaignFile {
  name: string
  bytes: Uint8Array
}

/**
 * A printable-looking file of about `bytes` bytes, unique to `index`: a binary STL of small
 * triangles scattered over a 100 mm box (what a scan or a fine mesh looks like to the readers
 * and the thumbnail renderer) on even indices, G-code moves on odd ones.
 */
export function campaignFile(index: number, bytes: number, random: () => number): CampaignFile {
  return index % 2 === 0
    ? { name: `part-${index}.stl`, bytes: scatteredStl(index, bytes, random) }
    : { name: `part-${index}.gcode`, bytes: gcodeMoves(index, bytes, random) }
}

function scatteredStl(index: number, bytes: number, random: () => number): Uint8Array {
  const triangles = Math.max(1, Math.floor((bytes - 84) / 50))
  const out = new Uint8Array(84 + 50 * triangles)
  out.set(new TextEncoder().encode(`campaign part ${index}`))
  const view = new DataView(out.buffer)
  view.setUint32(80, triangles, true)
  for (let i = 0; i < triangles; i++) {
    const base = 84 + i * 50 + 12
    const [x, y, z] = [random() * 100, random() * 100, random() * 100]
    for (let v = 0; v < 3; v++) {
      view.setFloat32(base + v * 12, x + random(), true)
      view.setFloat32(base + v * 12 + 4, y + random(), true)
      view.setFloat32(base + v * 12 + 8, z + random(), true)
    }
  }
  return out
}

function gcodeMoves(index: number, bytes: number, random: () => number): Uint8Array {
  const lines = [`; campaign part ${index}`, 'G28', 'G90', 'M83']
  let size = lines.join('\n').length
  while (size < bytes) {
    const line = `G1 X${(random() * 200).toFixed(3)} Y${(random() * 200).toFixed(3)} E${(random() * 0.1).toFixed(5)}`
    lines.push(line)
    size += line.length + 1
  }
  return new TextEncoder().encode(`${lines.join('\n')}\n`)
}
