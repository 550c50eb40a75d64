// The API's types, generated into the package's typed client (src/client) so that the web UI and
// other clients of `model-vault/client` share one file.
export type * from '../../../src/client/api-types'
