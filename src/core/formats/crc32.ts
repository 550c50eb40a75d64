/** The CRC-32 table of zip and gzip (reflected polynomial 0xEDB88320), made once. */
const table = Uint32Array.from({ length: 256 }, (_, byte) => {
  let crc = byte
  for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1
  return crc >>> 0
})

/** CRC-32 as zip computes it, for checking the short fields that carry one (the Unicode path extra field). */
export const crc32 = (bytes: Uint8Array): number => crc32Update(0, bytes)

/** The CRC-32 of what `crc` covered followed by `bytes`, for data that comes in pieces (start from 0). */
export function crc32Update(crc: number, bytes: Uint8Array): number {
  let value = ~crc >>> 0
  for (let i = 0; i < bytes.length; i++)
    value = (table[(value ^ (bytes[i] as number)) & 0xff] as number) ^ (value >>> 8)
  return ~value >>> 0
}
