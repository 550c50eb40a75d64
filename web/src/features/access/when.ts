/** A time as the access tables show it: date and minutes, in the reader's locale. */
export const when = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
