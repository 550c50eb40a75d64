import { type RefObject, useLayoutEffect, useState } from 'react'

/**
 * Where `ref`'s element starts on the page, in px from the document's top: the scroll margin a
 * window virtualiser needs for a list that sits below other content (a toolbar that grows and
 * shrinks). Read after every render, before paint; an unchanged value does not render again.
 */
export function usePageTop(ref: RefObject<HTMLElement | null>): number {
  const [top, setTop] = useState(0)
  useLayoutEffect(() => {
    setTop(Math.round((ref.current?.getBoundingClientRect().top ?? 0) + window.scrollY))
  })
  return top
}
