/** A date and time for people, in their locale, to the second (deliveries follow each other closely). */
export const formatDateTime = (iso: string) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })
