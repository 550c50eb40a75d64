/** Where a signed download link points, below the vault's base URL. */
export const signedFilePath = (fileId: string, token: string, fileName: string) =>
  `/api/v1/signed/files/${encodeURIComponent(fileId)}/${token}/${encodeURIComponent(fileName)}`

/** Where a signed link to a model's package points, below the vault's base URL. */
export const signedPackagePath = (modelId: string, token: string, fileName: string) =>
  `/api/v1/signed/packages/${encodeURIComponent(modelId)}/${token}/${encodeURIComponent(fileName)}`

/** The path with a signed link's token masked: the request log must not hold working links. */
export const withoutSignedToken = (path: string) =>
  path.replace(/(\/api\/v1\/signed\/(?:files|packages)\/[^/]+\/)[^/]+/, '$1***')
