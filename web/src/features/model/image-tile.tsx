import { Badge, Button, Stack, UnstyledButton } from '@mantine/core'
import { ThumbnailImage } from './thumbnail-image'
import type { ModelFile } from './types'

/** One image of the model: its thumbnail (click to view it large), and whether it is the cover or may become it. */
export function ImageTile(props: {
  image: ModelFile
  isCover: boolean
  onView: () => void
  onUseAsCover: () => void
  choosing: boolean
}) {
  const { image } = props
  return (
    <Stack gap={6} align="center" component="figure" m={0} aria-label={image.name}>
      <UnstyledButton onClick={props.onView} aria-label={`View ${image.name}`}>
        <ThumbnailImage kind="files" id={image.id} available={image.has_thumbnail} alt={image.name} size={140} />
      </UnstyledButton>
      {props.isCover ? (
        <Badge variant="light">Cover</Badge>
      ) : (
        <Button
          size="compact-xs"
          variant="default"
          onClick={props.onUseAsCover}
          loading={props.choosing}
          aria-label={`Use as cover: ${image.name}`}
        >
          Use as cover
        </Button>
      )}
    </Stack>
  )
}
