import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Sha256 } from './hasher.js'

/** SHA-256 in plain JavaScript, for runtimes that have no native incremental hash. */
export function createPortableSha256(): Sha256 {
  const hash = sha256.create()
  return {
    update: (chunk) => void hash.update(chunk),
    digestHex: () => bytesToHex(hash.digest()),
  }
}
