import { Unzip, UnzipInflate } from 'three/addons/libs/fflate.module.js'

/** Millimetres per 3MF unit (3MF core specification, `model@unit`). */
const millimetresPer: Record<string, number> = {
  micron: 0.001,
  millimeter: 1,
  centimeter: 10,
  inch: 25.4,
  foot: 304.8,
  meter: 1000,
}
const chunkSize = 64 * 1024
/** The `<model …>` start tag comes first; a root part that has not shown it by then never will. */
const headLimit = 64 * 1024

/**
 * How many millimetres one unit of this 3MF's root model is: three.js's 3MF loader ignores the
 * `unit` attribute, so a model drawn in inches would show 25.4 times too small. Reads only the
 * start of the root model part (`3D/*.model`), walking the archive's entries in order and
 * inflating nothing else, so a big 3MF costs little more than its bytes before that part.
 * An unknown or missing unit reads as millimetres, the specification's default.
 */
export function threeMfMillimetresPerUnit(bytes: Uint8Array): number {
  let head = ''
  let done = false
  const unzip = new Unzip((file) => {
    if (done || !/^3D\/[^/]+\.model$/i.test(file.name)) return
    const decoder = new TextDecoder()
    file.ondata = (error, chunk, final) => {
      if (done) return
      if (!error) head += decoder.decode(chunk, { stream: !final })
      done = error !== null || final || /<model\b[^>]*>/.test(head) || head.length > headLimit
    }
    file.start()
  })
  unzip.register(UnzipInflate)
  try {
    for (let offset = 0; offset < bytes.length && !done; offset += chunkSize) {
      unzip.push(bytes.subarray(offset, offset + chunkSize), offset + chunkSize >= bytes.length)
    }
  } catch {
    // An archive the loader could read but this streaming walk cannot (rare): show it as the loader read it.
    return 1
  }
  const unit = /<model\b[^>]*?\sunit\s*=\s*["']([a-z]+)["']/i.exec(head)?.[1]
  return millimetresPer[unit ?? 'millimeter'] ?? 1
}
