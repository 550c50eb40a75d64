import { Deflate, type Zippable, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { byteSourceFromBytes } from './byte-source.js'
import { crc32 } from './crc32.js'
import { type ByteSource, FormatError } from './types.js'
import { openZip, type ZipLimits } from './zip-reader.js'

const MiB = 1024 * 1024
const LIMITS: ZipLimits = { maxEntries: 10_000, maxEntryBytes: 512 * MiB, maxCompressionRatio: 200 }
const encode = (text: string) => new TextEncoder().encode(text)

/** A zip of the given files, deflated unless `level` is 0, as fflate writes it. */
function zip(files: Record<string, string | Uint8Array>, level: 0 | 6 = 6): Uint8Array {
  const zippable: Zippable = {}
  for (const [name, content] of Object.entries(files))
    zippable[name] = typeof content === 'string' ? encode(content) : content
  return zipSync(zippable, { level })
}

/** Opens the zip and reads every entry in full, by name. */
async function readAll(source: ByteSource, limits = LIMITS): Promise<Record<string, Uint8Array>> {
  const archive = await openZip(source, limits)
  const files: Record<string, Uint8Array> = {}
  for (const entry of archive.entries) files[entry.name] = await archive.readEntry(entry)
  return files
}

async function refusal(bytes: Uint8Array, limits = LIMITS): Promise<FormatError> {
  const error = await readAll(byteSourceFromBytes(bytes), limits).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(FormatError)
  return error as FormatError
}

/** Rewrites fields of one entry in both its local header and its central directory record. */
function patchEntry(
  zip: Uint8Array,
  name: string,
  patch: { flags?: number; method?: number; size?: number },
): Uint8Array {
  const data = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const encoded = new TextEncoder().encode(name)
  const named = (at: number, nameAt: number, lengthAt: number) =>
    data.getUint16(at + lengthAt, true) === encoded.length && encoded.every((byte, i) => zip[at + nameAt + i] === byte)
  const apply = (at: number, flagsAt: number) => {
    if (patch.flags !== undefined) data.setUint16(at + flagsAt, patch.flags, true)
    if (patch.method !== undefined) data.setUint16(at + flagsAt + 2, patch.method, true)
    if (patch.size !== undefined) data.setUint32(at + flagsAt + 16, patch.size, true)
  }
  for (let at = 0; at + 46 <= zip.length; at++) {
    if (data.getUint32(at, true) === 0x04034b50 && named(at, 30, 26)) apply(at, 6)
    if (data.getUint32(at, true) === 0x02014b50 && named(at, 46, 28)) apply(at, 8)
  }
  return zip
}

/** Overwrites the first bytes of an entry's compressed data with 0xFF, an invalid deflate block type. */
function corruptData(zip: Uint8Array, name: string): Uint8Array {
  const data = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  const local = zip.findIndex(
    (_, at) =>
      at + 30 <= zip.length &&
      data.getUint32(at, true) === 0x04034b50 &&
      new TextDecoder().decode(zip.subarray(at + 30, at + 30 + data.getUint16(at + 26, true))) === name,
  )
  zip.fill(
    0xff,
    local + 30 + name.length + data.getUint16(local + 28, true),
    local + 38 + name.length + data.getUint16(local + 28, true),
  )
  return zip
}

/** A stored (uncompressed) zip whose sizes and offsets all live in zip64 records, as some writers always do. */
function zip64Package(files: Record<string, string>): Uint8Array {
  const bytes = new Uint8Array(64 * 1024)
  const data = new DataView(bytes.buffer)
  let at = 0
  const u16 = (value: number) => {
    data.setUint16(at, value, true)
    at += 2
  }
  const u32 = (value: number) => {
    data.setUint32(at, value, true)
    at += 4
  }
  const u64 = (value: number) => {
    u32(value)
    u32(0)
  }
  const put = (content: Uint8Array) => {
    bytes.set(content, at)
    at += content.length
  }
  const entries = Object.entries(files).map(([name, text]) => ({
    name: new TextEncoder().encode(name),
    content: new TextEncoder().encode(text),
    offset: 0,
  }))
  for (const entry of entries) {
    entry.offset = at
    u32(0x04034b50)
    ;[45, 0, 0, 0, 0].forEach(u16)
    ;[0, 0xffffffff, 0xffffffff].forEach(u32)
    ;[entry.name.length, 20].forEach(u16)
    put(entry.name)
    ;[1, 16].forEach(u16)
    ;[entry.content.length, entry.content.length].forEach(u64)
    put(entry.content)
  }
  const directoryOffset = at
  for (const entry of entries) {
    u32(0x02014b50)
    ;[45, 45, 0, 0, 0, 0].forEach(u16)
    ;[0, 0xffffffff, 0xffffffff].forEach(u32)
    ;[entry.name.length, 28, 0, 0, 0].forEach(u16)
    ;[0, 0xffffffff].forEach(u32)
    put(entry.name)
    ;[1, 24].forEach(u16)
    ;[entry.content.length, entry.content.length, entry.offset].forEach(u64)
  }
  const directorySize = at - directoryOffset
  const record = at
  u32(0x06064b50)
  u64(44)
  ;[45, 45].forEach(u16)
  ;[0, 0].forEach(u32)
  ;[entries.length, entries.length, directorySize, directoryOffset].forEach(u64)
  ;[0x07064b50, 0].forEach(u32)
  u64(record)
  u32(1)
  u32(0x06054b50)
  ;[0, 0, 0xffff, 0xffff].forEach(u16)
  ;[0xffffffff, 0xffffffff].forEach(u32)
  u16(0)
  return bytes.slice(0, at)
}

/** Raw deflate data for `mebibytes` MiB of zeros, built from one repeated byte-aligned block so it takes milliseconds. */
function deflatedZeros(mebibytes: number): Uint8Array {
  const blocks: Uint8Array[] = []
  let pending: Uint8Array[] = []
  const deflate = new Deflate({ level: 6 }, (chunk) => pending.push(chunk))
  const flushed = () => {
    const block = new Uint8Array(pending.reduce((length, chunk) => length + chunk.length, 0))
    let at = 0
    for (const chunk of pending) {
      block.set(chunk, at)
      at += chunk.length
    }
    pending = []
    return block
  }
  for (let block = 0; block < 2; block++) {
    deflate.push(new Uint8Array(MiB))
    deflate.flush(true)
    blocks.push(flushed())
  }
  deflate.push(new Uint8Array(0), true)
  const parts = [blocks[0]!, ...Array<Uint8Array>(mebibytes - 1).fill(blocks[1]!), flushed()]
  const stream = new Uint8Array(parts.reduce((length, part) => length + part.length, 0))
  let at = 0
  for (const part of parts) {
    stream.set(part, at)
    at += part.length
  }
  return stream
}

/** A zip whose one entry is `mebibytes` MiB of deflated zeros that declares `declared` bytes. */
const bomb = (mebibytes: number, declared: number) =>
  patchEntry(zip({ 'zeros.bin': deflatedZeros(mebibytes) }, 0), 'zeros.bin', { method: 8, size: declared })

describe('zip reading', () => {
  it('lists its entries and reads each back, stored or deflated, whatever the chunks the store streams in', async () => {
    const files = {
      'a.txt': encode('hello, zip'),
      'Dir/B.bin': Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919) % 251),
      'empty.txt': new Uint8Array(0),
    }
    for (const [level, chunkSize] of [
      [0, 1],
      [0, 3],
      [6, 2],
      [6, 64 * 1024],
    ] as const) {
      const source = byteSourceFromBytes(zip(files, level), { chunkSize })
      expect((await openZip(source, LIMITS)).entries.map(({ name, size }) => [name, size])).toEqual([
        ['a.txt', 10],
        ['Dir/B.bin', 5000],
        ['empty.txt', 0],
      ])
      expect(await readAll(source)).toEqual(files)
    }
  })

  it('finds an entry by name whatever its case and streams it in pieces', async () => {
    const archive = await openZip(byteSourceFromBytes(zip({ '3D/3dmodel.model': 'x'.repeat(200_000) }, 0)), LIMITS)
    expect(archive.get('missing.txt')).toBeUndefined()
    const entry = archive.get('3d/3DMODEL.model')
    expect(entry).toMatchObject({ name: '3D/3dmodel.model', size: 200_000 })
    const pieces: number[] = []
    await archive.streamEntry(entry!, (chunk) => pieces.push(chunk.length))
    expect(pieces.length).toBeGreaterThan(1)
    expect(pieces.reduce((total, length) => total + length, 0)).toBe(200_000)
  })

  it('reads an archive written with zip64 records', async () => {
    const files = { '_rels/.rels': '<Relationships/>', '3D/3dmodel.model': '<model/>' }
    const read = await readAll(byteSourceFromBytes(zip64Package(files)))
    expect(
      Object.fromEntries(Object.entries(read).map(([name, bytes]) => [name, new TextDecoder().decode(bytes)])),
    ).toEqual(files)
  })

  it('refuses entry names that escape the archive', async () => {
    for (const name of [
      '../evil',
      'Metadata/../../evil',
      '/etc/passwd',
      'C:/Windows/evil',
      'Metadata\\evil',
      'evil\u0000.png',
    ]) {
      const error = await refusal(zip({ [name]: 'x' }))
      expect(error.kind, name).toBe('unsafe')
      expect(error.message, name).toMatch(/absolute or escapes the package/)
    }
  })

  it('refuses more entries than the limit and two entries whose names differ only in case', async () => {
    const files = { 'a.txt': '', 'b.txt': '', 'c.txt': '' }
    expect(await readAll(byteSourceFromBytes(zip(files)), { ...LIMITS, maxEntries: 3 })).toHaveProperty('c.txt')
    expect(await refusal(zip(files), { ...LIMITS, maxEntries: 2 })).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/3 entries, more than the limit of 2/),
    })
    expect(await refusal(zip({ 'Metadata/a.txt': '', 'Metadata/A.txt': '' }))).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/case-insensitive/),
    })
  })

  it('refuses a zip bomb by its declared size or its compression ratio, without inflating it', async () => {
    const gibibyte = bomb(1024, 1024 * MiB)
    expect(gibibyte.length).toBeLessThan(2 * MiB)
    const started = performance.now()
    expect(await refusal(gibibyte)).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/declares 1073741824 bytes, more than the limit of 536870912/),
    })
    expect(await refusal(gibibyte, { ...LIMITS, maxEntryBytes: 2048 * MiB })).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/ratio above 200:1/),
    })
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('refuses to read an entry that declares more than the reader asks for', async () => {
    const archive = await openZip(byteSourceFromBytes(zip({ 'settings.config': 'a = b\n'.repeat(1000) })), LIMITS)
    const entry = archive.get('settings.config')!
    expect(await archive.readEntry(entry, 6000)).toHaveLength(6000)
    await expect(archive.readEntry(entry, 5999)).rejects.toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/"settings.config" declares 6000 bytes, more than the limit of 5999/),
    })
  })

  it('stops inflating an entry as soon as it yields more than it declared', async () => {
    const liar = bomb(1024, MiB) // declares 1 MiB, holds 1 GiB: a ratio of 1:1 on paper
    const inner = byteSourceFromBytes(liar)
    let streamed = 0
    const counting: ByteSource = {
      size: inner.size,
      read: (start, end) => inner.read(start, end),
      stream(start, end) {
        const reader = inner.stream(start, end).getReader()
        return new ReadableStream({
          async pull(controller) {
            const { done, value } = await reader.read()
            if (done) return controller.close()
            streamed += value.length
            controller.enqueue(value)
          },
          cancel: (reason) => reader.cancel(reason),
        })
      },
    }
    const error = await readAll(counting).then(
      () => undefined,
      (thrown: unknown) => thrown,
    )
    expect(error).toMatchObject({
      kind: 'unsafe',
      message: expect.stringMatching(/inflates to more than the 1048576 bytes it declares/),
    })
    expect(streamed).toBeLessThanOrEqual(256 * 1024)
  })

  it('explains why an archive that is not a readable zip is malformed', async () => {
    const hello = () => zip({ 'a.txt': 'hello '.repeat(100) })
    const valid = hello()
    const cases: [string, Uint8Array, RegExp][] = [
      ['not a zip', encode('solid box\nendsolid box\n'), /no end of central directory/],
      ['cut short', valid.subarray(0, valid.length - 30), /no end of central directory|does not fit/],
      ['encrypted', patchEntry(hello(), 'a.txt', { flags: 1 }), /encrypted/],
      ['unsupported compression', patchEntry(hello(), 'a.txt', { method: 12 }), /compression method 12/],
      [
        'shorter than declared',
        patchEntry(hello(), 'a.txt', { size: 50_000 }),
        /inflates to 600 bytes, not the 50000 it declares/,
      ],
      [
        'corrupt deflate data',
        corruptData(hello(), 'a.txt'),
        /compressed data of entry "a.txt" is corrupt \(invalid block type\)/,
      ],
    ]
    for (const [what, bytes, message] of cases) {
      const error = await refusal(bytes)
      expect(error.kind, what).toBe('malformed')
      expect(error.message, what).toMatch(message)
    }
  })

  it('tells folders and symbolic links from files, and opens an entry as a stream', async () => {
    const bytes = zipSync({
      'parts/': new Uint8Array(0),
      'parts/cube.stl': encode('solid cube'),
      'parts/link.stl': [encode('/etc/passwd'), { os: 3, attrs: 0o120777 << 16 }],
      'parts/plain.stl': [encode('solid plain'), { os: 3, attrs: 0o100644 << 16 }],
    })
    const archive = await openZip(byteSourceFromBytes(bytes), LIMITS)
    expect(archive.entries.map(({ name, isDirectory, isSymlink }) => ({ name, isDirectory, isSymlink }))).toEqual([
      { name: 'parts/', isDirectory: true, isSymlink: false },
      { name: 'parts/cube.stl', isDirectory: false, isSymlink: false },
      { name: 'parts/link.stl', isDirectory: false, isSymlink: true },
      { name: 'parts/plain.stl', isDirectory: false, isSymlink: false },
    ])
    const cube = archive.get('parts/cube.stl')
    if (!cube) throw new Error('no cube')
    const text = await new Response(await archive.openEntry(cube)).text()
    expect(text).toBe('solid cube')
  })
})

/** A stored (uncompressed) zip whose entries carry exactly these name bytes, flags and extra fields. */
function zipWithRawNames(entries: { name: Uint8Array; flags: number; extra?: Uint8Array; data: Uint8Array }[]) {
  const parts: Uint8Array[] = []
  const central: Uint8Array[] = []
  let offset = 0
  for (const { name, flags, extra = new Uint8Array(0), data } of entries) {
    const local = new DataView(new ArrayBuffer(30))
    local.setUint32(0, 0x04034b50, true)
    local.setUint16(4, 20, true)
    local.setUint16(6, flags, true)
    local.setUint32(14, crc32(data), true)
    local.setUint32(18, data.length, true)
    local.setUint32(22, data.length, true)
    local.setUint16(26, name.length, true)
    const record = new DataView(new ArrayBuffer(46))
    record.setUint32(0, 0x02014b50, true)
    record.setUint16(4, 20, true)
    record.setUint16(6, 20, true)
    record.setUint16(8, flags, true)
    record.setUint32(16, crc32(data), true)
    record.setUint32(20, data.length, true)
    record.setUint32(24, data.length, true)
    record.setUint16(28, name.length, true)
    record.setUint16(30, extra.length, true)
    record.setUint32(42, offset, true)
    parts.push(new Uint8Array(local.buffer), name, data)
    central.push(new Uint8Array(record.buffer), name, extra)
    offset += 30 + name.length + data.length
  }
  const directorySize = central.reduce((sum, part) => sum + part.length, 0)
  const end = new DataView(new ArrayBuffer(22))
  end.setUint32(0, 0x06054b50, true)
  end.setUint16(8, entries.length, true)
  end.setUint16(10, entries.length, true)
  end.setUint32(12, directorySize, true)
  end.setUint32(16, offset, true)
  const bytes = [...parts, ...central, new Uint8Array(end.buffer)]
  const out = new Uint8Array(bytes.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of bytes) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/** The Info-ZIP Unicode Path extra field (0x7075) naming `name`, written for the raw name `forRaw`. */
function unicodePathField(name: string, forRaw: Uint8Array): Uint8Array {
  const utf8Name = encode(name)
  const field = new DataView(new ArrayBuffer(9 + utf8Name.length))
  field.setUint16(0, 0x7075, true)
  field.setUint16(2, 5 + utf8Name.length, true)
  field.setUint8(4, 1)
  field.setUint32(5, crc32(forRaw), true)
  const bytes = new Uint8Array(field.buffer)
  bytes.set(utf8Name, 9)
  return bytes
}

describe('zip entry names', () => {
  // "Größe Halter.stl" as Windows' "Compressed folder" writes it: CP437, no UTF-8 flag.
  const cp437Name = new Uint8Array([0x47, 0x72, 0x94, 0xe1, 0x65, ...encode(' Halter.stl')])
  const names = async (bytes: Uint8Array) =>
    (await openZip(byteSourceFromBytes(bytes), LIMITS)).entries.map((entry) => entry.name)

  it('reads names without the UTF-8 flag as CP437, as Windows writes them', async () => {
    expect(crc32(encode('123456789'))).toBe(0xcbf43926)
    expect(await names(zipWithRawNames([{ name: cp437Name, flags: 0, data: encode('solid') }]))).toEqual([
      'Größe Halter.stl',
    ])
  })

  it('reads names with the UTF-8 flag, and UTF-8 names without it (macOS), as UTF-8', async () => {
    const flagged = { name: encode('Größe/Halter.stl'), flags: 0x0800, data: encode('a') }
    const unflagged = { name: encode('Ständer.stl'), flags: 0, data: encode('b') }
    expect(await names(zipWithRawNames([flagged, unflagged]))).toEqual(['Größe/Halter.stl', 'Ständer.stl'])
  })

  it('takes the Unicode Path extra field written for the name, and ignores one left from another name', async () => {
    const fitting = {
      name: cp437Name,
      flags: 0,
      extra: unicodePathField('Größe Halter ✓.stl', cp437Name),
      data: encode('a'),
    }
    const stale = {
      name: encode('renamed.stl'),
      flags: 0,
      extra: unicodePathField('old name.stl', encode('old name.stl')),
      data: encode('b'),
    }
    expect(await names(zipWithRawNames([fitting, stale]))).toEqual(['Größe Halter ✓.stl', 'renamed.stl'])
  })

  it('checks a name from the Unicode Path field like any other: one that escapes the archive is refused', async () => {
    const escaping = {
      name: encode('harmless.stl'),
      flags: 0,
      extra: unicodePathField('../evil.stl', encode('harmless.stl')),
      data: encode('x'),
    }
    expect((await refusal(zipWithRawNames([escaping]))).message).toContain('escapes the package')
  })
})
