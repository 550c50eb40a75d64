import { Anchor, Image } from '@mantine/core'
import { type PrintRun, useRunPhotoUrl } from './use-print-runs'

/** A run's photo as a small picture that opens full size in a new tab. */
export function RunPhoto({ run }: { run: PrintRun }) {
  const url = useRunPhotoUrl(run)
  if (!url) return null
  return (
    <Anchor href={url} target="_blank" rel="noreferrer" aria-label={`Photo of ${run.file_name}, full size`}>
      <Image src={url} alt={`Photo of ${run.file_name}`} w={64} h={64} fit="cover" radius="sm" />
    </Anchor>
  )
}
