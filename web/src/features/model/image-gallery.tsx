import { Group, Modal, Stack, Title } from '@mantine/core'
import { notifications } from '@mantine/notifications'
import { useState } from 'react'
import { problemMessage } from '../../api/problem'
import { DownloadButton } from './download-button'
import { ImageTile } from './image-tile'
import { ThumbnailImage } from './thumbnail-image'
import type { ModelFile } from './types'
import { useChooseCover } from './use-model'

/** The model's pictures, cover first; one opens large in a dialog, any other can become the cover. */
export function ImageGallery({
  modelId,
  images,
  coverId,
}: {
  modelId: string
  images: ModelFile[]
  coverId: string | null
}) {
  const [viewing, setViewing] = useState<ModelFile>()
  const chooseCover = useChooseCover(modelId)
  const ordered = [...images].sort((a, b) => Number(b.id === coverId) - Number(a.id === coverId))
  const makeCover = (image: ModelFile) =>
    chooseCover.mutate(image.id, {
      onError: (error) =>
        notifications.show({ color: 'red', title: `${image.name} is not the cover`, message: problemMessage(error) }),
    })
  return (
    <Stack gap="sm" component="section" aria-labelledby="model-images">
      <Title order={2} size="h3" id="model-images">
        Images
      </Title>
      <Group gap="md" align="flex-start">
        {ordered.map((image) => (
          <ImageTile
            key={image.id}
            image={image}
            isCover={image.id === coverId}
            onView={() => setViewing(image)}
            onUseAsCover={() => makeCover(image)}
            choosing={chooseCover.isPending && chooseCover.variables === image.id}
          />
        ))}
      </Group>
      <Modal
        opened={viewing !== undefined}
        onClose={() => setViewing(undefined)}
        title={viewing?.name}
        size="auto"
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {viewing && (
          <Stack align="center">
            <ThumbnailImage
              kind="files"
              id={viewing.id}
              available={viewing.has_thumbnail}
              alt={viewing.name}
              size={512}
            />
            <DownloadButton file={viewing} />
          </Stack>
        )}
      </Modal>
    </Stack>
  )
}
