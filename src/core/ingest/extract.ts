import { readGcode } from '../formats/gcode.js'
import { readImage } from '../formats/image.js'
import { createMeshStats } from '../formats/mesh-stats.js'
import { readObj } from '../formats/obj.js'
import { type PreviewMesh, previewMesh } from '../formats/preview-mesh.js'
import { renderThumbnail } from '../formats/render-thumbnail.js'
import { readStepHeader } from '../formats/step.js'
import { readStl } from '../formats/stl.js'
import { readThreeMf } from '../formats/three-mf.js'
import { type ByteSource, FormatError, type MeshStats, type Thumbnail, type TriangleSource } from '../formats/types.js'
import type { FileFormat } from './file-formats.js'

/** What ingest learns from a file's bytes. */
export interface Extracted {
  /** Format-specific figures, stored as JSON and shown on the model detail. */
  metadata: Record<string, unknown>
  /** What could not be read, as sentences; the file is still stored. */
  warnings: string[]
  mesh?: MeshStats
  /** Embedded in the file, or rendered from its mesh. */
  thumbnail?: Thumbnail
  /** For a mesh over `PREVIEW_FROM_TRIANGLES`: a simplified copy the web UI's 3D view loads first. */
  preview?: PreviewMesh
  /** A better name for a new model than the file name (a 3MF's title). */
  title?: string
  /** Set when rendering was left out (`render: false`) and would make a thumbnail or a preview. */
  renderLater?: true
}

/**
 * `render: false` reads what is quick (figures, metadata, thumbnails a file carries) and leaves
 * out what costs the most: rendering a mesh's thumbnail, simplifying its preview, scaling a large
 * image down. Ingest reads so, and the analysis queue renders later (see core/analysis).
 */
export interface ExtractOptions {
  render: boolean
}

/**
 * Reads what each format offers. A malformed file is not an error: it is stored as an opaque
 * file with a warning. Only `FormatError('unsafe')` (zip bombs, path tricks) propagates,
 * because ingest refuses such files outright.
 */
export async function extractFile(format: FileFormat, source: ByteSource, options: ExtractOptions): Promise<Extracted> {
  try {
    switch (format) {
      case 'stl':
        return await extractMesh(
          (sink) => readStl(source, sink).then(() => {}),
          async (sink) => ({ stl: await readStl(source, sink) }),
          options,
        )
      case 'obj':
        return await extractMesh(
          (sink) => readObj(source, sink).then(() => {}),
          async (sink) => ({ obj: await readObj(source, sink) }),
          options,
        )
      case '3mf':
        return await extractThreeMf(source, options)
      case 'gcode':
        return await extractGcode(source)
      case 'step': {
        const header = await readStepHeader(source)
        return header
          ? { metadata: { step: header }, warnings: [] }
          : { metadata: {}, warnings: ['The file does not start with an ISO-10303-21 (STEP) header.'] }
      }
      case 'image':
        return await readImage(source, options.render)
      case 'document':
      case 'other':
        return { metadata: {}, warnings: [] }
    }
  } catch (error) {
    if (error instanceof FormatError && error.kind === 'malformed') {
      return { metadata: {}, warnings: [`Stored as an opaque file: ${error.message}`] }
    }
    throw error
  }
}

/**
 * Meshes with more triangles than this get a preview of at most `PREVIEW_TRIANGLES` (5 MB as
 * binary STL): a browser draws 100,000 triangles at once on any device, while a 300 MB STL took a
 * tab to 745 MB. Below it the file itself is small enough (10 MB as binary STL) to view.
 */
const PREVIEW_FROM_TRIANGLES = 200_000
const PREVIEW_TRIANGLES = 100_000

const previewOf = (replay: TriangleSource, mesh: MeshStats) =>
  mesh.triangles > PREVIEW_FROM_TRIANGLES ? previewMesh(replay, mesh, PREVIEW_TRIANGLES) : Promise.resolve(undefined)

/** Reads the mesh once for its figures (and the reader's own metadata), then again to render it and to simplify it. */
async function extractMesh(
  replay: TriangleSource,
  readOnce: (sink: ReturnType<typeof createMeshStats>) => Promise<Record<string, unknown>>,
  { render }: ExtractOptions,
): Promise<Extracted> {
  const stats = createMeshStats()
  const readerMetadata = await readOnce(stats)
  const mesh = stats.finish()
  const read = { metadata: { mesh, ...readerMetadata }, warnings: [], mesh }
  if (!render) return { ...read, renderLater: true }
  return { ...read, thumbnail: await renderThumbnail(replay, mesh.bbox), preview: await previewOf(replay, mesh) }
}

/**
 * Triangles drawn for a 3MF's rendered thumbnail (about half a second) beyond each object's
 * own mesh once; further instances are drawn as boxes (instancing lets a 12 KB file place
 * 100 million triangles).
 */
const THREE_MF_RENDER_TRIANGLES = 500_000

async function extractThreeMf(source: ByteSource, { render }: ExtractOptions): Promise<Extracted> {
  const contents = await readThreeMf(source)
  const mesh = await contents.measure()
  const replay: TriangleSource = (sink) => contents.forEachTriangle(sink, { maxTriangles: THREE_MF_RENDER_TRIANGLES })
  const read = {
    metadata: {
      mesh,
      objects: contents.objects,
      model: contents.metadata,
      slicer_config: contents.slicerConfig ?? null,
      ...(contents.plates ? { plates: contents.plates } : {}),
    },
    warnings: [],
    mesh,
    title: contents.metadata.title,
  }
  const rendersThumbnail = !contents.thumbnail && mesh.triangles > 0
  if (!render)
    return {
      ...read,
      thumbnail: contents.thumbnail,
      ...(rendersThumbnail || mesh.triangles > PREVIEW_FROM_TRIANGLES ? { renderLater: true as const } : {}),
    }
  return {
    ...read,
    thumbnail: contents.thumbnail ?? (rendersThumbnail ? await renderThumbnail(replay, mesh.bbox) : undefined),
    preview: await previewOf(replay, mesh),
  }
}

async function extractGcode(source: ByteSource): Promise<Extracted> {
  const { thumbnails, warnings, ...gcode } = await readGcode(source)
  return {
    metadata: {
      gcode: {
        ...gcode,
        thumbnails: thumbnails.map(({ width, height, contentType }) => ({ width, height, content_type: contentType })),
      },
    },
    warnings,
    // Slicers write several sizes; the largest looks best in listings.
    thumbnail: thumbnails.at(-1),
  }
}
