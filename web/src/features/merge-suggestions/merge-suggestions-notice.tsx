import { Alert, Anchor } from '@mantine/core'
import { IconArrowMerge } from '@tabler/icons-react'
import { Link } from 'react-router'
import { useMergeSuggestions } from './use-merge-suggestions'

/** On the overview: how many groups of models look like one, with the way to review them; nothing when none. */
export function MergeSuggestionsNotice() {
  const suggestions = useMergeSuggestions()
  const total = suggestions.data?.total ?? 0
  if (total === 0) return null
  return (
    <Alert variant="light" color="blue" icon={<IconArrowMerge aria-hidden />} title="Models that look like one">
      {total === 1 ? '1 group of models looks' : `${total} groups of models look`} like one model.{' '}
      <Anchor component={Link} to="/library/merge-suggestions" c="inherit" underline="always">
        Review them
      </Anchor>
    </Alert>
  )
}
