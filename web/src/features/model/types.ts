import type { components } from '../../api/schema'

export type ModelFile = components['schemas']['File']
export type UpdateModel = components['schemas']['UpdateModelRequest']

/** The formats the 3D view can show. */
export const viewableFormats = ['stl', '3mf', 'obj'] as const
export type ViewableFormat = (typeof viewableFormats)[number]

export const isViewable = (file: ModelFile): file is ModelFile & { format: ViewableFormat } =>
  (viewableFormats as readonly string[]).includes(file.format)
