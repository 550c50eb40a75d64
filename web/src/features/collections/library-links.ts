/** The library filtered by one collection or tag, in the model list's own query parameter names. */
export const libraryOfCollection = (id: string) => `/library?${new URLSearchParams({ collection: id })}`
export const libraryOfTag = (name: string) => `/library?${new URLSearchParams({ tag: name })}`
