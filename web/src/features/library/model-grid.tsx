import { defaultRangeExtractor, useWindowVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useDeferredValue, useEffect, useRef, useState } from 'react'
import { useElementWidth } from '../../ui/use-element-width'
import { usePageTop } from '../../ui/use-page-top'
import { ModelCard } from './model-card'
import type { ModelListProps } from './use-model-selection'

/** Narrowest a card gets before the grid drops a column; 2 to 6 columns, as wide as the page allows. */
const minCardWidth = 180
const maxColumns = 6
const gap = 16
/** A card with a two-line name and tags; rows are measured once drawn. */
const estimatedRowHeight = 330
const nearEndRows = 4

/**
 * The library grid, virtualised: only the rows near the window's scroll position are in the DOM
 * (a few dozen cards however many pages are loaded), inside a list as tall as all of them. Each
 * card is a list item with its position, so screen readers still tell "12 of 480". The row holding
 * the focused card and the rows either side of it stay drawn while it has focus: the next Tab or
 * Shift+Tab always finds its card in the DOM, however far the scroll-driven drawing lags behind.
 */
export function ModelGrid({
  models,
  complete,
  onNearEnd,
  isSelected,
  onSelect,
}: ModelListProps & {
  /** Called while the rows drawn come within a few rows of the last loaded one: load more. */
  onNearEnd: () => void
}) {
  const [sizeRef, width] = useElementWidth<HTMLDivElement>()
  const listRef = useRef<HTMLDivElement>(null)
  const columns = Math.min(maxColumns, Math.max(2, Math.floor((width + gap) / (minCardWidth + gap))))
  // No rows until the grid's width is known (its first layout, before the first paint): cards
  // drawn in a guessed column count would be drawn again at once.
  const rowCount = width > 0 ? Math.ceil(models.length / columns) : 0

  const scrollMargin = usePageTop(listRef)

  const [focusedRow, setFocusedRow] = useState<number | null>(null)
  // The first drawing has only the rows in view (what a cold page waits for); the rows around
  // them, ready for scrolling, follow in a deferred drawing straight after.
  const overscan = useDeferredValue(2, 0)
  const virtualizer = useWindowVirtualizer({
    count: rowCount,
    estimateSize: () => estimatedRowHeight,
    overscan,
    gap,
    scrollMargin,
    rangeExtractor: useCallback(
      (range: Parameters<typeof defaultRangeExtractor>[0]) => {
        const rows = defaultRangeExtractor(range)
        if (focusedRow === null) return rows
        const kept = [focusedRow - 1, focusedRow, focusedRow + 1].filter((row) => row >= 0 && row < range.count)
        return [...new Set([...rows, ...kept])].sort((a, b) => a - b)
      },
      [focusedRow],
    ),
  })
  // Rows change content when the column count does: measure them again.
  useEffect(() => {
    if (columns > 0) virtualizer.measure()
  }, [columns, virtualizer])

  const lastDrawn = virtualizer.getVirtualItems().at(-1)?.index ?? -1
  useEffect(() => {
    if (rowCount > 0 && lastDrawn >= rowCount - 1 - nearEndRows) onNearEnd()
  }, [lastDrawn, rowCount, onNearEnd])

  const rowOf = (target: EventTarget) =>
    Number((target as HTMLElement).closest<HTMLElement>('[data-index]')?.dataset.index ?? Number.NaN)

  return (
    <div ref={sizeRef}>
      {/* biome-ignore lint/a11y/useSemanticElements: a <ul> cannot hold the row boxes the virtualiser positions. */}
      <div
        ref={listRef}
        role="list"
        aria-label="Models"
        style={{ position: 'relative', height: virtualizer.getTotalSize() }}
        // A focus event's update is drawn before the next key press is handled.
        onFocus={(event) => {
          const row = rowOf(event.target)
          setFocusedRow(Number.isNaN(row) ? null : row)
        }}
        onBlur={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget)) setFocusedRow(null)
        }}
      >
        {virtualizer.getVirtualItems().map((row) => (
          <div
            key={row.key}
            data-index={row.index}
            ref={virtualizer.measureElement}
            role="none"
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              width: '100%',
              transform: `translateY(${row.start - virtualizer.options.scrollMargin}px)`,
              display: 'grid',
              gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`,
              gap,
            }}
          >
            {models.slice(row.index * columns, (row.index + 1) * columns).map((model, i) => (
              // biome-ignore lint/a11y/useSemanticElements: an <li> belongs in a <ul>, which cannot hold the rows.
              <div
                key={model.id}
                role="listitem"
                aria-posinset={row.index * columns + i + 1}
                aria-setsize={complete ? models.length : -1}
                style={{ display: 'flex', flexDirection: 'column' }}
              >
                <ModelCard
                  model={model}
                  index={row.index * columns + i}
                  selected={isSelected(model.id)}
                  onSelect={onSelect}
                />
              </div>
            ))}
          </div>
        ))}
      </div>
    </div>
  )
}
