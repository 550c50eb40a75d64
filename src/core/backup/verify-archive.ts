import tar from 'tar-stream'
import type { CreateSha256 } from '../blobs/hasher.js'
import { VaultError } from '../errors.js'
import type { Compression } from '../runtime/compression.js'
import { type BackupManifest, isAllowedEntryName, manifestPath } from './manifest.js'
import { drained } from './tar-archive.js'

const maxManifestBytes = 256 * 1024 * 1024

/** An entry as `verifyArchive` hands it on while it reads it. */
export interface ArchiveEntry {
  path: string
  body: ReadableStream<Uint8Array>
  /** Settles once `body` has been read to its end. */
  readToEnd: Promise<void>
}

export const invalidArchive = (detail: string) =>
  new VaultError('invalid_archive', `The backup archive is not usable: ${detail}`)

/**
 * Reads a whole archive and checks it against its manifest without writing anything: every
 * entry is a regular file with an allowed name (no links, no `..`, no absolute paths), no
 * name repeats, each blob's bytes hash to its name, the manifest comes last and lists
 * exactly the entries seen with their sizes and hashes. A damaged gzip shows only at its
 * end, which is why a restore verifies the whole archive before it changes anything.
 * `onEntry` gets each entry's bytes as a stream (a restore stages them there) and a promise that
 * settles once that stream has been read to its end; it may read all of the bytes or none, and
 * the rest is read here. Its work counts only if the whole archive verifies, so a caller must
 * undo it when this throws.
 */
export async function verifyArchive(
  { createSha256, compression }: { createSha256: CreateSha256; compression: Compression },
  archive: ReadableStream<Uint8Array>,
  onEntry?: (entry: ArchiveEntry) => Promise<void>,
): Promise<BackupManifest> {
  const extract = tar.extract()
  // A read error (a damaged gzip) must end the entry being read too, or its reader waits forever.
  let current: { destroy(error?: Error): void } | undefined
  const feeding = feed(archive.pipeThrough(compression.gunzip()), extract, (error) => current?.destroy(error))
  // Observed at once: the loop below may be awaiting `onEntry` when the gzip fails, and an
  // unobserved rejection would end the process. The awaits below still see the error.
  feeding.catch(() => {})
  const seen = new Map<string, { size: number; sha256: string }>()
  let manifest: BackupManifest | undefined
  // Failures of `onEntry` itself (a full disk) are the caller's, not the archive's: passed on as they are.
  let entryFailure: { error: unknown } | undefined
  try {
    for await (const entry of extract) {
      current = entry
      const { name, type } = entry.header
      if (manifest) throw invalidArchive(`"${name}" follows the manifest, which must be the last entry.`)
      if (type !== 'file') throw invalidArchive(`"${name}" is a ${type}, not a regular file.`)
      if (!isAllowedEntryName(name)) throw invalidArchive(`it holds an unexpected entry "${name}".`)
      if (seen.has(name)) throw invalidArchive(`"${name}" appears twice.`)
      const hash = createSha256()
      let size = 0
      const manifestChunks: Uint8Array[] = []
      const chunks = (entry as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]()
      let ended = false
      let markEnded = () => {}
      const readToEnd = new Promise<void>((resolve) => {
        markEnded = resolve
      })
      const next = async () => {
        const result = ended ? { done: true as const } : await chunks.next()
        if (result.done) {
          ended = true
          markEnded()
          return null
        }
        hash.update(result.value)
        size += result.value.byteLength
        if (name === manifestPath && size > maxManifestBytes) throw invalidArchive('the manifest is too large.')
        return result.value
      }
      let readFailed = false
      const read = () =>
        next().catch((error: unknown) => {
          readFailed = true
          throw error
        })
      if (name !== manifestPath && onEntry) {
        await onEntry({ path: name, body: entryStream(read), readToEnd }).catch((error: unknown) => {
          if (!readFailed) entryFailure = { error }
          throw error
        })
      }
      for (let chunk = await next(); chunk; chunk = await next()) if (name === manifestPath) manifestChunks.push(chunk)
      const sha256 = hash.digestHex()
      if ((name.startsWith('blobs/') || name.startsWith('thumbs/')) && !name.endsWith(`/${sha256}`)) {
        throw invalidArchive(`the content of "${name}" does not match its hash.`)
      }
      if (name === manifestPath) manifest = parseManifest(manifestChunks)
      else seen.set(name, { size, sha256 })
    }
    await feeding
  } catch (error) {
    extract.destroy()
    await feeding.catch(() => {})
    if (entryFailure) throw entryFailure.error
    if (error instanceof VaultError) throw error
    throw invalidArchive(`it cannot be read (${error instanceof Error ? error.message : String(error)}).`)
  }
  if (!manifest) throw invalidArchive('it has no manifest.')
  const listed = new Map(manifest.entries.map((entry) => [entry.path, entry]))
  for (const [path, actual] of seen) {
    const expected = listed.get(path)
    if (!expected) throw invalidArchive(`"${path}" is not in the manifest.`)
    if (expected.size !== actual.size || expected.sha256 !== actual.sha256)
      throw invalidArchive(`"${path}" does not match the manifest.`)
  }
  const missing = manifest.entries.find((entry) => !seen.has(entry.path))
  if (missing) throw invalidArchive(`"${missing.path}" is listed in the manifest but missing.`)
  return manifest
}

/** One entry's bytes, read only as fast as the consumer asks (no read-ahead past the entry). */
function entryStream(next: () => Promise<Uint8Array | null>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await next()
        if (chunk) controller.enqueue(chunk)
        else controller.close()
      },
    },
    { highWaterMark: 0 },
  )
}

/** The manifest, checked for the shape this version writes; anything else is not ours. */
function parseManifest(chunks: Uint8Array[]): BackupManifest {
  const bytes = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.byteLength, 0))
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  let parsed: Partial<BackupManifest>
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes)) as Partial<BackupManifest>
  } catch {
    throw invalidArchive('the manifest is not valid JSON.')
  }
  const entriesValid =
    Array.isArray(parsed.entries) &&
    parsed.entries.every((e) => typeof e?.path === 'string' && Number.isInteger(e.size) && typeof e.sha256 === 'string')
  if (
    parsed.format !== 'model-vault-backup' ||
    !entriesValid ||
    typeof parsed.schema_version !== 'number' ||
    typeof parsed.app_version !== 'string'
  ) {
    throw invalidArchive('the manifest is not a model-vault backup manifest.')
  }
  if (parsed.format_version !== 1)
    throw invalidArchive(`the manifest has format version ${parsed.format_version}, which this version cannot read.`)
  return parsed as BackupManifest
}

/** Writes the decompressed bytes into the extractor, honouring its backpressure. */
async function feed(
  stream: ReadableStream<Uint8Array>,
  extract: tar.Extract,
  onError: (error: Error) => void,
): Promise<void> {
  const reader = stream.getReader()
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      // Cancelling an errored stream rejects with its error, which is already being handled.
      if (extract.destroyed) return void reader.cancel().catch(() => {})
      if (!extract.write(value)) await drained(extract)
    }
    ;(extract as unknown as { end(): void }).end()
  } catch (error) {
    onError(error as Error)
    extract.destroy(error as Error)
    throw error
  }
}
