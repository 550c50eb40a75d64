import { useSearchParams } from 'react-router'
import type { operations } from '../../api/schema'

type ListParams = NonNullable<operations['listModels']['parameters']['query']>
export type SortKey = NonNullable<ListParams['sort']>
export type FileFormat = Extract<NonNullable<ListParams['file_format']>, string>
export type LibraryView = 'grid' | 'list'

/**
 * What the library shows, as the URL says it:
 * `?q=benchy&sort=name&format=stl&gcode=1&tag=calibration&collection=<id>&from=2026-01-01&to=2026-06-30&view=list`.
 */
export interface LibraryQuery {
  q: string
  sort: SortKey
  formats: FileFormat[]
  hasGcode: boolean
  tags: string[]
  /** A collection id, or '' for any. */
  collection: string
  /** Added on or after / on or before these days (`YYYY-MM-DD`), or ''. */
  addedFrom: string
  addedTo: string
}

export const sortLabels: Record<SortKey, string> = {
  updated: 'Recently changed',
  created: 'Recently added',
  name: 'Name',
  size: 'Size',
}
export const fileFormats: FileFormat[] = ['stl', '3mf', 'obj', 'gcode', 'step', 'other']

const isSortKey = (value: string | null): value is SortKey => value !== null && Object.hasOwn(sortLabels, value)
const isDay = (value: string | null) => value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value)
const isFormat = (value: string): value is FileFormat => (fileFormats as string[]).includes(value)

/** What the library URL's search part asks for; anything it does not understand reads as the default. */
export function parseLibraryQuery(params: URLSearchParams): LibraryQuery {
  return {
    q: params.get('q') ?? '',
    sort: isSortKey(params.get('sort')) ? (params.get('sort') as SortKey) : 'updated',
    formats: params.getAll('format').filter(isFormat),
    hasGcode: params.get('gcode') === '1',
    tags: params.getAll('tag'),
    collection: params.get('collection') ?? '',
    addedFrom: isDay(params.get('from')) ? (params.get('from') as string) : '',
    addedTo: isDay(params.get('to')) ? (params.get('to') as string) : '',
  }
}

/**
 * The library's search, filters, sort and view, kept in the URL so a search can be bookmarked,
 * shared and restored with Back. Setting a value replaces the history entry (typing is not history).
 */
export function useLibraryQuery() {
  const [params, setParams] = useSearchParams()
  const query = parseLibraryQuery(params)
  const view: LibraryView = params.get('view') === 'list' ? 'list' : 'grid'

  const update = (change: Partial<LibraryQuery> & { view?: LibraryView }) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current)
        const set = (key: string, value: string | undefined) => (value ? next.set(key, value) : next.delete(key))
        if (change.q !== undefined) set('q', change.q.trim() ? change.q : undefined)
        if (change.sort !== undefined) set('sort', change.sort === 'updated' ? undefined : change.sort)
        if (change.hasGcode !== undefined) set('gcode', change.hasGcode ? '1' : undefined)
        if (change.view !== undefined) set('view', change.view === 'grid' ? undefined : change.view)
        if (change.collection !== undefined) set('collection', change.collection)
        if (change.addedFrom !== undefined) set('from', change.addedFrom)
        if (change.addedTo !== undefined) set('to', change.addedTo)
        if (change.tags !== undefined) {
          next.delete('tag')
          for (const tag of change.tags) next.append('tag', tag)
        }
        if (change.formats !== undefined) {
          next.delete('format')
          for (const format of change.formats) next.append('format', format)
        }
        return next
      },
      { replace: true },
    )
  return { query, view, update }
}
