import type { Selectable } from 'kysely'
import type { FilesTable, ModelsTable } from '../db/schema.js'
import { type FileRole, roleOf } from './file-roles.js'

/** A stored file as the API shows it. */
export interface FileRecord {
  id: string
  model_id: string
  name: string
  /** Where it sits inside its model, '/'-separated; '' for the top. */
  folder: string
  format: string
  role: FileRole
  content_type: string
  size: number
  sha256: string
  metadata: Record<string, unknown>
  parse_warnings: string[]
  has_thumbnail: boolean
  /** Triangles of the file's preview mesh (see formats/preview-mesh); null when it has none. */
  preview_triangles: number | null
  uploaded_by: string | null
  created_at: string
}

export interface ModelRecord {
  id: string
  name: string
  description: string
  creator: string | null
  source_url: string | null
  license: string | null
  has_thumbnail: boolean
  /** Its files whose thumbnail or preview is still being rendered in the background; 0 when none. */
  analysing_files: number
  created_at: string
  updated_at: string
}

export const toFileRecord = (row: Selectable<FilesTable>): FileRecord => ({
  id: row.id,
  model_id: row.model_id,
  name: row.original_name,
  folder: row.folder,
  format: row.format,
  role: roleOf(row.format),
  content_type: row.content_type,
  size: row.size,
  sha256: row.sha256,
  metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  parse_warnings: JSON.parse(row.parse_warnings) as string[],
  has_thumbnail: row.thumbnail_sha256 !== null,
  preview_triangles: row.preview_sha256 === null ? null : row.preview_triangles,
  uploaded_by: row.uploaded_by,
  created_at: row.created_at,
})

/** The columns of `models` that `toModelRecord` and the list's summaries read. */
export const summaryColumns = [
  'id',
  'name',
  'description',
  'creator',
  'source_url',
  'license',
  'thumbnail_sha256',
  'analysing_files',
  'created_at',
  'updated_at',
  'file_count',
  'total_size',
  'tag_names',
  'file_formats',
] as const
export type SummaryColumn = (typeof summaryColumns)[number]
export type SummaryColumns = Pick<Selectable<ModelsTable>, SummaryColumn>

export const toModelRecord = (row: SummaryColumns): ModelRecord => ({
  id: row.id,
  name: row.name,
  description: row.description,
  creator: row.creator,
  source_url: row.source_url,
  license: row.license,
  has_thumbnail: row.thumbnail_sha256 !== null,
  analysing_files: Number(row.analysing_files),
  created_at: row.created_at,
  updated_at: row.updated_at,
})
