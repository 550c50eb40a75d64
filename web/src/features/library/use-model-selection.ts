import { useCallback, useMemo, useRef, useState } from 'react'
import type { components } from '../../api/schema'
import type { LibraryQuery } from './library-query'

type ModelSummary = components['schemas']['ModelSummary']

/**
 * What is selected: models picked one by one (ids), or every model the filter matches, which the
 * server walks itself, so selecting "all 80,000" never loads them into the page.
 */
export type ModelSelection = { kind: 'ids'; ids: ReadonlySet<string> } | { kind: 'all' }

const none: ModelSelection = { kind: 'ids', ids: new Set() }

/** Picks a model, or with Shift the range of loaded models from the last one picked to it. */
export type SelectModel = (index: number, shiftKey: boolean) => void

/** What the grid and the list are given to show and change the selection: the loaded models and their ticks. */
export interface ModelListProps {
  models: ModelSummary[]
  /** Every page is loaded: the models' count is the list's size. */
  complete: boolean
  isSelected: (id: string) => boolean
  onSelect: SelectModel
}

/**
 * The library's selection over the loaded models `items`. It is dropped when the filter or sort
 * changes: "all matching" would otherwise mean another set than the one the user chose.
 */
export function useModelSelection(query: LibraryQuery, items: ModelSummary[]) {
  const queryKey = JSON.stringify(query)
  const [state, setState] = useState({ queryKey, selection: none })
  const selection = state.queryKey === queryKey ? state.selection : none
  const anchor = useRef<number | null>(null)
  const itemsRef = useRef(items)
  itemsRef.current = items

  const set = useCallback((next: ModelSelection) => setState({ queryKey, selection: next }), [queryKey])

  const select: SelectModel = useCallback(
    (index, shiftKey) => {
      const loaded = itemsRef.current
      const model = loaded[index]
      if (!model) return
      setState((previous) => {
        const current = previous.queryKey === queryKey ? previous.selection : none
        // Unticking one model of "all matching" leaves the loaded models but that one.
        const ids = new Set(current.kind === 'all' ? loaded.map((item) => item.id) : current.ids)
        const picking = current.kind === 'all' ? false : !ids.has(model.id)
        const from = shiftKey && anchor.current !== null ? Math.min(anchor.current, index) : index
        const to = shiftKey && anchor.current !== null ? Math.max(anchor.current, index) : index
        for (const item of loaded.slice(from, to + 1)) {
          if (picking) ids.add(item.id)
          else ids.delete(item.id)
        }
        return { queryKey, selection: { kind: 'ids', ids } }
      })
      anchor.current = index
    },
    [queryKey],
  )

  const isSelected = useMemo(() => (id: string) => selection.kind === 'all' || selection.ids.has(id), [selection])

  return {
    selection,
    isSelected,
    select,
    selectAllMatching: () => set({ kind: 'all' }),
    clear: () => {
      anchor.current = null
      set(none)
    },
  }
}
