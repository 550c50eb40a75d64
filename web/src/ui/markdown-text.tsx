import { Anchor, TypographyStylesProvider } from '@mantine/core'
import Markdown from 'react-markdown'

/**
 * A description (a model's, a collection's) as Markdown (CommonMark). react-markdown builds React elements, never
 * HTML: raw HTML in the text shows as text, and its URL filter drops `javascript:` and other
 * unsafe links. Links open in a new tab without handing over this page.
 */
export function MarkdownText({ children }: { children: string }) {
  return (
    <TypographyStylesProvider p={0} style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
      <Markdown
        skipHtml
        components={{
          a: ({ href, children: text }) => (
            <Anchor href={href} target="_blank" rel="noopener noreferrer nofollow">
              {text}
            </Anchor>
          ),
        }}
      >
        {children}
      </Markdown>
    </TypographyStylesProvider>
  )
}
