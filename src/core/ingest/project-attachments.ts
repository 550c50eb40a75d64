import { putContentAddressed, type StoredContent } from '../blobs/put-content-addressed.js'
import { VaultError } from '../errors.js'
import { FormatError } from '../formats/types.js'
import { openZip } from '../formats/zip-reader.js'
import { roleOf } from '../library/file-roles.js'
import { baseName } from './archive-entries.js'
import { blobByteSource } from './blob-byte-source.js'
import { formatOf } from './file-formats.js'
import type { IngestDeps } from './ingest-deps.js'

/** Where Bambu Studio and OrcaSlicer keep a project's pictures, assembly guide and other files. */
const attachmentsFolder = 'Auxiliaries/'
/** At most this many attachments of one project are taken, each at most this large. */
const maxAttachments = 50
const maxAttachmentBytes = 64 * 1024 * 1024

type AttachmentDeps = Pick<IngestDeps, 'blobs' | 'createSha256' | 'logger'>

/** Registers stored bytes as a file of the model (ingest's `registerUpload`, passed in). */
type Register<D> = (
  deps: D,
  stored: StoredContent,
  upload: { filename: string; modelId: string; uploadedBy: string },
) => Promise<{ duplicate: boolean }>

/**
 * Adds the pictures and documents a 3MF project carries (the designer's photos under
 * `Auxiliaries/Model Pictures/`, an assembly guide PDF…) to the project's model, each registered
 * as an upload of its own (`register`), so it gets its role, thumbnail and per-model dedup.
 * Best effort: the project itself is already stored, so an attachment that cannot be read is
 * logged and left out. Resolves how many were added.
 */
export async function registerProjectAttachments<D extends AttachmentDeps>(
  deps: D,
  project: StoredContent,
  upload: { modelId: string; uploadedBy: string },
  register: Register<D>,
): Promise<number> {
  let added = 0
  try {
    const zip = await openZip(blobByteSource(deps.blobs, project.sha256, project.size), {
      maxEntries: 10_000,
      maxEntryBytes: maxAttachmentBytes,
      maxCompressionRatio: 200,
    })
    const attachments = zip.entries
      .filter((entry) => entry.name.startsWith(attachmentsFolder) && !entry.isDirectory && !entry.isSymlink)
      .filter((entry) => entry.size > 0 && entry.size <= maxAttachmentBytes)
      .filter((entry) => roleOf(formatOf(baseName(entry.name))) !== 'part')
      .slice(0, maxAttachments)
    for (const entry of attachments) {
      const stored = await putContentAddressed(deps.blobs, deps.createSha256, await zip.openEntry(entry))
      const result = await register(deps, stored, { ...upload, filename: baseName(entry.name) })
      if (!result.duplicate) added++
    }
  } catch (error) {
    if (!(error instanceof FormatError) && !(error instanceof VaultError && error.status < 500)) throw error
    deps.logger.warn('project attachments left out', { sha256: project.sha256, error: error.message })
  }
  return added
}
