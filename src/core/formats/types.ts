/**
 * Shared shapes of the format readers (STL, OBJ, 3MF, G-code) and the thumbnail renderer.
 * Readers are pure functions over bytes from the blob store; they import nothing
 * runtime-specific, so the same code runs on Node and on Workers.
 */

/** Random access to a stored file: what a reader needs to read a 3MF's central directory or a G-code's tail. */
export interface ByteSource {
  readonly size: number
  /** Bytes `start` to `end` inclusive, as one array (callers keep ranges small). */
  read(start: number, end: number): Promise<Uint8Array>
  /** The whole file, or bytes `start` to `end` inclusive, as a stream (for sequential readers of large files). */
  stream(start?: number, end?: number): ReadableStream<Uint8Array>
}

/** Receives triangles one at a time, so nothing needs the whole mesh in memory. */
export interface TriangleSink {
  triangle(
    ax: number,
    ay: number,
    az: number,
    bx: number,
    by: number,
    bz: number,
    cx: number,
    cy: number,
    cz: number,
  ): void
}

/** Replays a mesh's triangles into a sink, as often as asked (stats, then rendering). */
export type TriangleSource = (sink: TriangleSink) => Promise<void>

export type Vec3 = [x: number, y: number, z: number]

/** Geometry figures of a mesh, in the mesh's units (millimetres for our formats). */
export interface MeshStats {
  triangles: number
  bbox: { min: Vec3; max: Vec3 }
  /** bbox.max - bbox.min */
  size: Vec3
  /** Enclosed volume (absolute value of the signed volume), mm³. */
  volume: number
  /** Surface area, mm². */
  area: number
  /**
   * Every edge is shared by exactly two triangles (a closed, watertight surface). null when
   * the mesh is too large to check within the memory budget.
   */
  manifold: boolean | null
}

/** A thumbnail as found in a file, rendered or scaled down: PNG or JPEG (an uploaded GIF or WebP image itself) bytes a browser can show. */
export interface Thumbnail {
  width: number
  height: number
  contentType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'
  bytes: Uint8Array
}

/**
 * A file that cannot be read safely or correctly. `unsafe` (zip bombs, path tricks) makes
 * ingest refuse the upload; `malformed` makes ingest store the file as opaque with the
 * message recorded as a parse warning.
 */
export class FormatError extends Error {
  constructor(
    readonly kind: 'unsafe' | 'malformed',
    message: string,
  ) {
    super(message)
    this.name = 'FormatError'
  }
}
