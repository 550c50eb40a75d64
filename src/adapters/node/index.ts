/** `model-vault/node`: the whole vault on Node, as `npm start` runs it, for embedding in a Node program. */
export { createNodeVault, type NodeVault, type NodeVaultOptions } from './create-node-vault.js'
export { readNodeConfig } from './node-config.js'
