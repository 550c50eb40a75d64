import { Button } from '@mantine/core'
import classes from './skip-link.module.css'

/**
 * "Skip to content": the first Tab stop of every signed-in page, shown only while it has the focus;
 * it moves the focus to the element `targetId` (the page's `<main>`), past the header and the navigation.
 */
export function SkipLink({ targetId }: { targetId: string }) {
  return (
    <Button
      component="a"
      href={`#${targetId}`}
      className={classes.skipLink}
      onClick={(event) => {
        // Focus, not a hash in the URL: the router owns the URL, and the page should not jump.
        event.preventDefault()
        document.getElementById(targetId)?.focus()
      }}
    >
      Skip to content
    </Button>
  )
}
