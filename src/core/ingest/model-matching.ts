import { type Kysely, sql } from 'kysely'
import type { Database } from '../db/schema.js'
import { fileNamePrefixes, nameKey, objectKey, slicedFromFormats } from '../formats/name-keys.js'
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
    .where(unsliced('files.id'))
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst()
  return row?.model_id
}

/**
 * The file is no sliced file: a `.gcode.3mf` holds a mesh and is a 3MF, but it is matched by the
 * names it was sliced from (its `sliced_sources`), never as a mesh. Every sliced file has such
 * rows but one whose objects and file name give no name at all.
 */
const unsliced = (fileId: 'files.id' | 'mesh.id') =>
  sql<boolean>`not exists (select 1 from sliced_sources where sliced_sources.file_id = ${sql.ref(fileId)})`

/**
 * The model a sliced file (G-code, `.gcode.3mf`) was sliced from: a mesh file whose name equals
 * a sliced object's name, or begins the sliced file's own name (slicers name their output
 * `<object>_<layer height>_<material>_<time>.gcode`). The longest name wins.
 */
export async function findModelForGcode(
  db: Kysely<Database>,
  objectNames: string[],
  gcodeFilename: string,
): Promise<string | undefined> {
  const keys = new Set([...objectNames.map(objectKey), ...fileNamePrefixes(gcodeFilename)])
  keys.delete('')
  if (keys.size === 0) return undefined
  const rows = await db
    .selectFrom('files')
    .select(['model_id', 'name_key'])
    .where('name_key', 'in', [...keys])
    .where('format', 'in', slicedFromFormats)
    .where(unsliced('files.id'))
    .orderBy('created_at')
    .execute()
  return rows.reduce<{ model_id: string; name_key: string } | undefined>(
    (best, row) => (row.name_key.length > (best?.name_key.length ?? 0) ? row : best),
    undefined,
  )?.model_id
}

/**
 * The model a mesh joins when its sliced file came first: the oldest model that holds a sliced
 * file naming this mesh (see `slicedSourceKeys`) and no mesh of its own, so a mesh never joins
 * another mesh's model by name alone.
 */
export async function findGcodeModelForMesh(db: Kysely<Database>, meshFilename: string): Promise<string | undefined> {
  const key = nameKey(meshFilename)
  if (key === '') return undefined
  const row = await db
    .selectFrom('sliced_sources')
    .innerJoin('files', 'files.id', 'sliced_sources.file_id')
    .select('files.model_id')
    .where('sliced_sources.name_key', '=', key)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('files as mesh')
            .select('mesh.id')
            .whereRef('mesh.model_id', '=', 'files.model_id')
            .where('mesh.format', 'in', slicedFromFormats)
            .where(unsliced('mesh.id')),
        ),
      ),
    )
    .orderBy('files.created_at')
    .limit(1)
    .executeTakeFirst()
  return row?.model_id
}
