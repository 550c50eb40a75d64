import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { apiTypesFile, generateApiTypes } from '../scripts/api-types.js'

describe("the web UI's generated API types", () => {
  it('match the route definitions (else run `npm run generate:api` and commit the result)', async () => {
    const committed = await readFile(apiTypesFile, 'utf8')
    const fresh = await generateApiTypes()
    if (committed !== fresh) {
      expect.fail(`${apiTypesFile} is stale: the API changed. Run \`npm run generate:api\` and commit the result.`)
    }
  })
})
