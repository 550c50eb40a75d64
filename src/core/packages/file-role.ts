/** What a file is to its model: a printable part, a picture of it, or a document that comes with it. */
export type FileRole = 'part' | 'image' | 'document'

/**
 * The role a stored format gives a file. Every format is a part until the `image` and `document`
 * formats exist; this is the one place that maps them.
 */
export function fileRole(_format: string): FileRole {
  return 'part'
}
