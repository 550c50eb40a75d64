import type { Kysely } from 'kysely'
import type { Database } from '../db/schema.js'
import type { MeshStats } from '../formats/types.js'

/**
 * Mesh identity is geometric, not byte-wise: the same mesh as binary STL, ASCII STL or
 * inside a 3MF has the same triangle count, size and volume, within float noise (a 3MF
 * stores decimal text, and slicers translate the part onto the bed, so position is ignored).
 */
const sizeToleranceMm = 0.01
const volumeTolerance = 0.001

export async function findModelByMesh(db: Kysely<Database>, mesh: MeshStats): Promise<string | undefined> {
  if (mesh.triangles === 0) return undefined
  const [x, y, z] = mesh.size
  const row = await db
    .selectFrom('files')
    .select('model_id')
    .where('mesh_triangles', '=', mesh.triangles)
    .where('mesh_size_x', '>=', x - sizeToleranceMm)
    .where('mesh_size_x', '<=', x + sizeToleranceMm)
    .where('mesh_size_y', '>=', y - sizeToleranceMm)
    .where('mesh_size_y', '<=', y + sizeToleranceMm)
    .where('mesh_size_z', '>=', z - sizeToleranceMm)
    .where('mesh_size_z', '<=', z + sizeToleranceMm)
    .where('mesh_volume', '>=', mesh.volume * (1 - volumeTolerance) - 1e-9)
    .where('mesh_volume', '<=', mesh.volume * (1 + volumeTolerance) + 1e-9)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst()
  return row?.model_id
}

/** Lower case, no extension, runs of spaces, dashes and underscores folded: "Shape Box.STL" → "shape-box". */
export const nameKey = (name: string) =>
  name
    .toLowerCase()
    .replace(/\.[a-z0-9]{1,5}$/, '')
    .replace(/[\s_-]+/g, '-')
    .replace(/^-|-$/g, '')

/**
 * The model a G-code was sliced from: a mesh file whose name equals a sliced object's name,
 * or begins the G-code's own file name (slicers name their output
 * `<object>_<layer height>_<material>_<time>.gcode`). The longest name wins.
 */
export async function findModelForGcode(
  db: Kysely<Database>,
  objectNames: string[],
  gcodeFilename: string,
): Promise<string | undefined> {
  // Slicers name objects after their file plus an instance suffix: PrusaSlicer writes
  // `box.stl id:0 copy 0` in comments and `box.stl_id_0_copy_0` in firmware labels.
  const keys = new Set(objectNames.map((name) => nameKey(name.replace(/[\s_]id[:_]\d+[\s_]copy[\s_]\d+$/i, ''))))
  const parts = nameKey(gcodeFilename).split('-')
  for (let i = 1; i <= parts.length; i++) keys.add(parts.slice(0, i).join('-'))
  keys.delete('')
  if (keys.size === 0) return undefined
  const rows = await db
    .selectFrom('files')
    .select(['model_id', 'name_key'])
    .where('name_key', 'in', [...keys])
    .where('format', 'in', ['stl', '3mf', 'obj', 'step'])
    .orderBy('created_at')
    .execute()
  return rows.reduce<{ model_id: string; name_key: string } | undefined>(
    (best, row) => (row.name_key.length > (best?.name_key.length ?? 0) ? row : best),
    undefined,
  )?.model_id
}
