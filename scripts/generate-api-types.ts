import { writeFile } from 'node:fs/promises'
import { apiTypesFile, generateApiTypes } from './api-types.js'

/** `npm run generate:api`: rewrites the web UI's API types after a route definition changed. */
await writeFile(apiTypesFile, await generateApiTypes())
console.log(`wrote ${apiTypesFile}`)
