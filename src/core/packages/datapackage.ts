import type { FileRole } from '../library/file-roles.js'
import type { FileRecord } from '../library/records.js'

/** One file of a package as `datapackage.json` lists it (a Frictionless resource). */
export interface PackageResource {
  name: string
  path: string
  format: string
  mediatype: string
  bytes: number
  hash: string
  /** `cover` only on the model's cover image. */
  model_vault: {
    role: FileRole
    original_name: string
    /** Its folder inside the model ('' for the top), whatever folder its path puts it in. */
    folder: string
    metadata: Record<string, unknown>
    cover?: true
  }
}

/** `datapackage.json`: a Frictionless Data Package (v1) with the vault's own fields under `model_vault`. */
export interface Datapackage {
  profile: 'data-package'
  name: string
  title: string
  description: string
  keywords: string[]
  created: string
  /** Frictionless: the designer as an `author`, the page it came from, its license (an SPDX id as `name`). */
  contributors?: { title: string; role: 'author' }[]
  sources?: { title: string; path: string }[]
  licenses?: { name: string }[]
  resources: PackageResource[]
  model_vault: { version: 1; model_id: string; collections: string[]; exported_at: string }
}

/** A file placed in a package: its record, path inside the model's folder and resource name. */
export interface PlacedFile {
  file: FileRecord
  path: string
  resourceName: string
}

/** What of a model `datapackage.json` records besides its files. */
export interface PackagedModel {
  id: string
  name: string
  description: string
  creator: string | null
  source_url: string | null
  license: string | null
  tags: string[]
  collections: { name: string }[]
  created_at: string
  cover_file_id: string | null
}

/** The `datapackage.json` of one model's package, so zip upload can read the model back without loss. */
export function buildDatapackage(
  model: PackagedModel,
  slug: string,
  files: PlacedFile[],
  exportedAt: string,
): Datapackage {
  return {
    profile: 'data-package',
    name: slug,
    title: model.name,
    description: model.description,
    keywords: model.tags,
    created: model.created_at,
    ...(model.creator ? { contributors: [{ title: model.creator, role: 'author' as const }] } : {}),
    ...(model.source_url ? { sources: [{ title: 'Source', path: model.source_url }] } : {}),
    ...(model.license ? { licenses: [{ name: model.license }] } : {}),
    resources: files.map(({ file, path, resourceName }) => ({
      name: resourceName,
      path,
      format: file.format,
      mediatype: file.content_type,
      bytes: file.size,
      hash: `sha256:${file.sha256}`,
      model_vault: {
        role: file.role,
        original_name: file.name,
        folder: file.folder,
        metadata: file.metadata,
        ...(file.id === model.cover_file_id ? { cover: true as const } : {}),
      },
    })),
    model_vault: {
      version: 1,
      model_id: model.id,
      collections: model.collections.map((collection) => collection.name),
      exported_at: exportedAt,
    },
  }
}
