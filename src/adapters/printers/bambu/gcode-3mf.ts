import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { crc32 } from 'node:zlib'
import { PrinterError } from '../../../core/printers/provider.js'

/**
 * Plain G-code wrapped as a `.gcode.3mf`, the package Bambu Studio hands a Bambu printer: the
 * G-code as `Metadata/plate_1.gcode` with its MD5 beside it, the slice list naming plate 1, and
 * an empty 3MF model. The printer starts it with `project_file` on `Metadata/plate_1.gcode`.
 *
 * Entries are stored, not deflated, with their sizes and CRCs in the local headers (no data
 * descriptors, which not every firmware's unzip reads), so the G-code is first streamed to a
 * temporary file to learn its CRC; the package is then streamed from it.
 */
export interface Wrapped3mf {
  size: number
  stream(): Readable
  /** Removes the temporary copy. */
  discard(): Promise<void>
}

const platePath = 'Metadata/plate_1.gcode'

const textParts = (md5: string): Array<[string, string]> => [
  [
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="model" ContentType="application/vnd.ms-package.3dmanufacturing-3dmodel+xml"/><Default Extension="gcode" ContentType="text/x.gcode"/></Types>\n',
  ],
  [
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Target="/3D/3dmodel.model" Id="rel-1" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>\n',
  ],
  [
    '3D/3dmodel.model',
    '<?xml version="1.0" encoding="UTF-8"?>\n<model unit="millimeter" xml:lang="en-US" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><metadata name="Application">model-vault</metadata><resources/><build/></model>\n',
  ],
  [
    'Metadata/slice_info.config',
    '<?xml version="1.0" encoding="UTF-8"?>\n<config>\n  <header>\n    <header_item key="X-BBL-Client-Type" value="slicer"/>\n  </header>\n  <plate>\n    <metadata key="index" value="1"/>\n  </plate>\n</config>\n',
  ],
  [`${platePath}.md5`, md5],
]

/** The zip format without ZIP64 stops at 4 GiB. */
const zipLimit = 0xffff_ffff

interface Entry {
  name: Buffer
  crc: number
  size: number
  offset: number
}

function localHeader(entry: Entry): Buffer {
  const header = Buffer.alloc(30)
  header.writeUInt32LE(0x04034b50, 0)
  header.writeUInt16LE(20, 4)
  header.writeUInt16LE(0x0800, 6) // names are UTF-8
  header.writeUInt16LE(0, 8) // stored
  header.writeUInt16LE(0, 10)
  header.writeUInt16LE(0x21, 12) // 1980-01-01
  header.writeUInt32LE(entry.crc, 14)
  header.writeUInt32LE(entry.size, 18)
  header.writeUInt32LE(entry.size, 22)
  header.writeUInt16LE(entry.name.length, 26)
  header.writeUInt16LE(0, 28)
  return Buffer.concat([header, entry.name])
}

function centralDirectory(entries: Entry[], offset: number): Buffer {
  const records = entries.map((entry) => {
    const record = Buffer.alloc(46)
    record.writeUInt32LE(0x02014b50, 0)
    record.writeUInt16LE(20, 4)
    record.writeUInt16LE(20, 6)
    record.writeUInt16LE(0x0800, 8)
    record.writeUInt16LE(0, 10)
    record.writeUInt16LE(0, 12)
    record.writeUInt16LE(0x21, 14)
    record.writeUInt32LE(entry.crc, 16)
    record.writeUInt32LE(entry.size, 20)
    record.writeUInt32LE(entry.size, 24)
    record.writeUInt16LE(entry.name.length, 28)
    record.writeUInt32LE(entry.offset, 42)
    return Buffer.concat([record, entry.name])
  })
  const directory = Buffer.concat(records)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([directory, end])
}

/** Wraps the G-code of `source`; throws `PrinterError` when it is too large for a plain zip. */
export async function wrapGcodeIn3mf(source: ReadableStream<Uint8Array>): Promise<Wrapped3mf> {
  const dir = await mkdtemp(join(tmpdir(), 'vault-bambu-'))
  const discard = () => rm(dir, { recursive: true, force: true })
  try {
    const gcodePath = join(dir, 'plate_1.gcode')
    const md5 = createHash('md5')
    let crc = 0
    let gcodeSize = 0
    await pipeline(
      Readable.fromWeb(source as import('node:stream/web').ReadableStream<Uint8Array>),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          md5.update(chunk)
          crc = crc32(chunk, crc)
          gcodeSize += chunk.length
          yield chunk
        }
      },
      createWriteStream(gcodePath),
    )

    let offset = 0
    const head: Buffer[] = []
    const entries: Entry[] = []
    for (const [name, text] of textParts(md5.digest('hex').toUpperCase())) {
      const data = Buffer.from(text, 'utf8')
      const entry = { name: Buffer.from(name, 'utf8'), crc: crc32(data), size: data.length, offset }
      entries.push(entry)
      head.push(localHeader(entry), data)
      offset += 30 + entry.name.length + data.length
    }
    const gcode = { name: Buffer.from(platePath, 'utf8'), crc, size: gcodeSize, offset }
    entries.push(gcode)
    head.push(localHeader(gcode))
    offset += 30 + gcode.name.length + gcodeSize
    const tail = centralDirectory(entries, offset)
    const prefix = Buffer.concat(head)
    const size = prefix.length + gcodeSize + tail.length
    if (offset > zipLimit || size > zipLimit)
      throw new PrinterError('refused', 'the G-code is too large to wrap for the printer (4 GiB at most)')
    return {
      size,
      stream: () =>
        Readable.from(
          (async function* () {
            yield prefix
            yield* createReadStream(gcodePath)
            yield tail
          })(),
        ),
      discard,
    }
  } catch (error) {
    await discard()
    throw error
  }
}
