/** What a file is to its model: a part to print (or keep), a picture of it, or a text about it. */
export type FileRole = 'part' | 'image' | 'document'

/** The formats (see ingest/file-formats) whose files are unique per model rather than across the vault. */
export const mediaFormats = ['image', 'document']

export const roleOf = (format: string): FileRole => (format === 'image' || format === 'document' ? format : 'part')
