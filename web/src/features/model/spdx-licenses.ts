import type { ComboboxParsedItem, OptionsFilter } from '@mantine/core'
import spdxLicenseList from 'spdx-license-list'

/** An SPDX license: its identifier and full name. */
export interface SpdxLicense {
  id: string
  name: string
}

/** The licenses makers choose most on Printables and Thingiverse, offered first. */
const makersLicenses = [
  'CC-BY-4.0',
  'CC-BY-SA-4.0',
  'CC-BY-NC-4.0',
  'CC-BY-NC-SA-4.0',
  'CC-BY-ND-4.0',
  'CC-BY-NC-ND-4.0',
  'CC0-1.0',
  'GPL-3.0-or-later',
  'MIT',
]

const byLowerId = new Map(
  Object.entries(spdxLicenseList).map(([id, { name }]) => [id.toLowerCase(), { id, name } satisfies SpdxLicense]),
)

/** The SPDX license a license field names by its identifier (in any case), or undefined for free text. */
export const spdxLicenseOf = (text: string): SpdxLicense | undefined => byLowerId.get(text.trim().toLowerCase())

/** Every SPDX identifier, the makers' licenses first, then the rest by identifier. */
export const licenseIds: string[] = [
  ...makersLicenses,
  ...Object.keys(spdxLicenseList)
    .filter((id) => !makersLicenses.includes(id))
    .sort((a, b) => a.localeCompare(b)),
]

/** Matches the typed text against an identifier or a full name, keeping the list's order. */
export const filterLicenses: OptionsFilter = ({ options, search, limit }) => {
  const wanted = search.trim().toLowerCase()
  const matches = (option: ComboboxParsedItem) =>
    'value' in option &&
    (option.value.toLowerCase().includes(wanted) ||
      (spdxLicenseOf(option.value)?.name.toLowerCase().includes(wanted) ?? false))
  return options.filter(matches).slice(0, limit)
}
