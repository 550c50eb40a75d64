import type { components } from '../../api/schema'

export type ApiKeyScope = components['schemas']['ApiKeyScope']

/**
 * What a new key is for, as the create form offers it: the common jobs rather than the five
 * scopes, so that giving a hook only what it needs is the easy choice. Upload only is the default:
 * most keys are slicer hooks, and a leaked hook key should be able to do nothing but upload.
 */
interface ScopePreset {
  value: string
  label: string
  scopes: ApiKeyScope[]
}

export const uploadOnly: ScopePreset = { value: 'upload', label: 'Slicer hook: upload only', scopes: ['upload'] }

export const scopePresets: ScopePreset[] = [
  uploadOnly,
  { value: 'read', label: 'Read only', scopes: ['read'] },
  { value: 'print', label: 'Printing: read and send to printers', scopes: ['read', 'print'] },
  { value: 'manage', label: 'Library editing: read and change models', scopes: ['read', 'manage'] },
  { value: 'full', label: 'Full access, like your password', scopes: ['full'] },
]
