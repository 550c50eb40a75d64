interface ExpiryChoice {
  value: string
  label: string
  /** null: until revoked. */
  days: number | null
}

export const neverExpires: ExpiryChoice = { value: 'never', label: 'Never', days: null }

/** How long a new key may live, as the create form offers it. */
export const expiryChoices: ExpiryChoice[] = [
  neverExpires,
  { value: '30', label: 'In 30 days', days: 30 },
  { value: '90', label: 'In 90 days', days: 90 },
  { value: '365', label: 'In a year', days: 365 },
]

export const expiryFromNow = (days: number | null): string | null =>
  days === null ? null : new Date(Date.now() + days * 24 * 60 * 60 * 1000).toISOString()
