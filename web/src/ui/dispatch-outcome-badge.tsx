import { Badge } from '@mantine/core'
import type { components } from '../api/schema'

type Outcome = components['schemas']['Dispatch']['outcome']

const outcomeColors: Record<Outcome, string> = {
  confirmed: 'green',
  uploaded: 'teal',
  refused: 'gray',
  not_ready_after_upload: 'yellow',
  upload_failed: 'red',
  start_refused: 'red',
  not_confirmed: 'orange',
  preparing: 'blue',
}

/** What became of one send to a printer, in words and a colour (the printer's and the model's print history). */
export function DispatchOutcomeBadge({ outcome }: { outcome: Outcome }) {
  return (
    <Badge color={outcomeColors[outcome]} variant="light">
      {outcome.replaceAll('_', ' ')}
    </Badge>
  )
}
