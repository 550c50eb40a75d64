/**
 * Password hashing with a memory-hard KDF and a random salt per password. Encoded hashes
 * carry their own parameters, so old hashes keep verifying after the parameters are raised
 * and are upgraded at the next successful sign-in (`needsRehash`).
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>
  /** False for a wrong password and for a malformed hash; never throws for either. */
  verify(password: string, encoded: string): Promise<boolean>
  needsRehash(encoded: string): boolean
}

export const passwordLength = { min: 12, max: 1024 }
