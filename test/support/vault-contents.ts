import type { TestVault } from './test-vault.js'

/** How many rows a table of the vault's database holds. */
export async function countRows(vault: TestVault, table: 'files' | 'models'): Promise<number> {
  const row = await vault.deps.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Every key in the vault's blob store, sorted. */
export async function blobKeys(vault: TestVault): Promise<string[]> {
  const keys: string[] = []
  for await (const blob of vault.deps.blobs.list()) keys.push(blob.key)
  return keys.sort()
}

/** The files, models and blobs of a vault: what an upload refused as a whole must leave as it was. */
export async function vaultContents(vault: TestVault) {
  return {
    files: await countRows(vault, 'files'),
    models: await countRows(vault, 'models'),
    blobs: await blobKeys(vault),
  }
}
