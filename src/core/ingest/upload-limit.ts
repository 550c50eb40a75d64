import { VaultError } from '../errors.js'

export const payloadTooLarge = (maxBytes: number) =>
  new VaultError(
    'payload_too_large',
    `The upload is larger than the limit of ${maxBytes} bytes (VAULT_MAX_UPLOAD_BYTES).`,
  )

/** Passes bytes through until more than `maxBytes` have gone by, then fails the stream with a 413. */
export function limitBytes(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength
      if (seen > maxBytes) controller.error(payloadTooLarge(maxBytes))
      else controller.enqueue(chunk)
    },
  })
}
