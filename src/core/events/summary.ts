/** An event in words, for the formats people read (ntfy, Discord). */
export interface EventSummary {
  title: string
  message: string
  /** Whether it wants someone's attention soon: a failure, an error, a bed to clear. */
  urgent: boolean
  /** ntfy tags (shown as emoji): one word per kind. */
  tags: string[]
}
