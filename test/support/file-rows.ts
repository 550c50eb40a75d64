import type { Insertable } from 'kysely'
import type { FilesTable } from '../../src/core/db/schema.js'

/**
 * A `files` row as tests write it straight into the database (no bytes stored, no metadata):
 * named by its id unless a name is given, its hash its id unless one is given.
 */
export function bareFileRow(file: {
  id: string
  model: string
  format: string
  size: number
  createdAt: string
  name?: string
  sha256?: string
  slicer?: string
}): Insertable<FilesTable> {
  const name = file.name ?? file.id
  return {
    id: file.id,
    sha256: file.sha256 ?? file.id,
    size: file.size,
    model_id: file.model,
    original_name: name,
    name_key: name,
    format: file.format,
    content_type: 'application/octet-stream',
    metadata: '{}',
    parse_warnings: '[]',
    mesh_triangles: null,
    mesh_size_x: null,
    mesh_size_y: null,
    mesh_size_z: null,
    mesh_volume: null,
    thumbnail_sha256: null,
    thumbnail_content_type: null,
    uploaded_by: null,
    created_at: file.createdAt,
    slicer: file.slicer ?? null,
  }
}
