import { type RefObject, useLayoutEffect, useRef, useState } from 'react'

/**
 * An element's width, known from its first layout: read in a layout effect (before the browser
 * paints, so nothing is drawn at a guessed width), then followed with a ResizeObserver. Mantine's
 * `useElementSize` starts at 0 and reports a frame or more later, which costs a cold page a
 * wasted render and a frame before what depends on the width can show.
 */
export function useElementWidth<T extends HTMLElement>(): [RefObject<T | null>, number] {
  const ref = useRef<T>(null)
  const [width, setWidth] = useState(0)
  useLayoutEffect(() => {
    const element = ref.current
    if (!element) return
    setWidth(element.getBoundingClientRect().width)
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(entry.borderBoxSize[0]?.inlineSize ?? entry.contentRect.width)
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return [ref, width]
}
