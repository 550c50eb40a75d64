import type { Selectable } from 'kysely'
import { putContentAddressed, type StoredContent, streamOf } from '../blobs/put-content-addressed.js'
import type { FilesTable } from '../db/schema.js'
import { VaultError } from '../errors.js'
import { slicedObjectNames } from '../formats/name-keys.js'
import { FormatError, type MeshStats } from '../formats/types.js'
import { contentDeleted } from '../library/content-release.js'
import type { FileFormat } from './file-formats.js'
import type { IngestDeps } from './ingest-deps.js'

type ReadingDeps = Pick<IngestDeps, 'blobs' | 'thumbnails' | 'createSha256' | 'extractStoredFile'>

/** The columns of a file row that come from reading its bytes. */
type Figures = Pick<
  Selectable<FilesTable>,
  | 'metadata'
  | 'parse_warnings'
  | 'mesh_triangles'
  | 'mesh_size_x'
  | 'mesh_size_y'
  | 'mesh_size_z'
  | 'mesh_volume'
  | 'thumbnail_sha256'
  | 'thumbnail_content_type'
  | 'preview_sha256'
  | 'preview_triangles'
>

/** What ingest knows of an upload's bytes: read now, or copied from a file of another model with the same bytes. */
export interface Reading {
  figures: Figures
  mesh?: MeshStats
  /** A better name for a new model than the file name (a 3MF's title). */
  title?: string
  /** Set for a sliced file (G-code, a `.gcode.3mf`): the objects it was sliced from (see `slicedObjectNames`). */
  objectNames?: string[]
  /** The thumbnail's and preview's bytes when read now, to store again should a concurrent deletion take them. */
  thumbnailBytes?: Uint8Array
  previewBytes?: Uint8Array
  /** Its thumbnail or preview is still to be rendered: the analysis queue takes it (see core/analysis). */
  renderLater?: boolean
}

/**
 * Reads stored bytes for their figures, metadata and any thumbnail they carry (kept in the
 * thumbnail store), leaving rendering to the analysis queue (`renderLater`); 422 `unsafe_file`
 * for a file refused for what it is.
 */
export async function readContent(deps: ReadingDeps, format: FileFormat, stored: StoredContent): Promise<Reading> {
  const extracted = await extractOrRefuse(deps, format, stored)
  const keep = (bytes: Uint8Array | undefined) =>
    bytes ? putContentAddressed(deps.thumbnails, deps.createSha256, streamOf(bytes)) : undefined
  const thumbnail = await keep(extracted.thumbnail?.bytes)
  const preview = await keep(extracted.preview?.bytes)
  return {
    figures: {
      metadata: JSON.stringify(extracted.metadata),
      parse_warnings: JSON.stringify(extracted.warnings),
      mesh_triangles: extracted.mesh?.triangles ?? null,
      mesh_size_x: extracted.mesh?.size[0] ?? null,
      mesh_size_y: extracted.mesh?.size[1] ?? null,
      mesh_size_z: extracted.mesh?.size[2] ?? null,
      mesh_volume: extracted.mesh?.volume ?? null,
      thumbnail_sha256: thumbnail?.sha256 ?? null,
      thumbnail_content_type: extracted.thumbnail?.contentType ?? null,
      preview_sha256: preview?.sha256 ?? null,
      preview_triangles: extracted.preview?.triangles ?? null,
    },
    mesh: extracted.mesh,
    title: extracted.title,
    objectNames: slicedObjectNames(format, extracted.metadata),
    thumbnailBytes: extracted.thumbnail?.bytes,
    previewBytes: extracted.preview?.bytes,
    renderLater: extracted.renderLater === true,
  }
}

/** The reading of bytes another file already holds: the same figures, nothing read again. */
export function readingOf(row: Selectable<FilesTable>): Reading {
  return {
    figures: {
      metadata: row.metadata,
      parse_warnings: row.parse_warnings,
      mesh_triangles: row.mesh_triangles,
      mesh_size_x: row.mesh_size_x,
      mesh_size_y: row.mesh_size_y,
      mesh_size_z: row.mesh_size_z,
      mesh_volume: row.mesh_volume,
      thumbnail_sha256: row.thumbnail_sha256,
      thumbnail_content_type: row.thumbnail_content_type,
      preview_sha256: row.preview_sha256,
      preview_triangles: row.preview_triangles,
    },
    objectNames: slicedObjectNames(row.format, JSON.parse(row.metadata)),
  }
}

async function extractOrRefuse(deps: ReadingDeps, format: FileFormat, stored: StoredContent) {
  try {
    return await deps.extractStoredFile(format, stored, { render: false })
  } catch (error) {
    if (error instanceof FormatError && error.kind === 'unsafe') {
      await forgetRefusedContent(deps, stored)
      throw new VaultError('unsafe_file', `The file was refused: ${error.message}`)
    }
    // The bytes went while they were read: a model holding them was deleted, or the orphan sweep took them.
    if (!(await deps.blobs.stat(stored.sha256))) throw contentDeleted()
    throw error
  }
}

/**
 * Removes bytes refused for what they are (empty, unsafe) if this upload stored them. Safe
 * under concurrency: another upload of the same bytes meets the same refusal, so no file
 * row can come to point at them.
 */
export async function forgetRefusedContent(deps: Pick<IngestDeps, 'blobs'>, stored: StoredContent): Promise<void> {
  if (stored.created) await deps.blobs.delete(stored.sha256)
}
