import type { PresetKind } from './preset-kinds'

/** The presets feature's query keys, in one place. */
export const presetKeys = {
  all: (kind: PresetKind) => ['presets', kind] as const,
  list: (kind: PresetKind, search: string) => ['presets', kind, 'list', search] as const,
}
