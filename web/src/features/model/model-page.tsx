import { Alert, Anchor, Badge, Center, Grid, Group, Loader, Stack, Text, Title } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link, useParams } from 'react-router'
import { ApiError, problemMessage } from '../../api/problem'
import { formatBytes } from '../../ui/format-bytes'
import { MarkdownText } from '../../ui/markdown-text'
import { PrintRunsSection } from '../../ui/print-runs/print-runs-section'
import { AnalysingNotice } from './analysing-notice'
import { CollectionsEditor } from './collections-editor'
import { DeleteModelButton } from './delete-model-button'
import { DocumentList } from './document-list'
import { DownloadPackageButton } from './download-package-button'
import { FileTree } from './file-tree'
import { ImageGallery } from './image-gallery'
import { InlineTextEdit } from './inline-text-edit'
import { MakerFields } from './maker-fields'
import { MergeModelsButton } from './merge-models-button'
import { ModelViewerPanel } from './model-viewer-panel'
import { SendFilesButton } from './send-files-button'
import { TagsEditor } from './tags-editor'
import { ThumbnailImage } from './thumbnail-image'
import type { ModelFile } from './types'
import { useModel, useUpdateModel } from './use-model'

export interface ModelPageProps {
  /** Extra actions on each file's card (the printers feature adds "Send to printer" for G-code). */
  renderFileActions?: (file: ModelFile) => ReactNode
  /** Adding files to this model (the upload feature's buttons and its uploads into the model). */
  renderAddFiles?: (model: { id: string; name: string }) => ReactNode
}

/** One model: cover, 3D view, editable name, description (Markdown), designer, source, license, tags and collections, its files by folder, images and documents, delete. */
export function ModelPage({ renderFileActions, renderAddFiles }: ModelPageProps) {
  const { id = '' } = useParams()
  const model = useModel(id)
  const update = useUpdateModel(id)

  if (model.isPending) {
    return (
      <Center h={200}>
        <Loader aria-label="Loading the model" />
      </Center>
    )
  }
  if (model.isError) {
    const missing = model.error instanceof ApiError && model.error.status === 404
    return (
      <Stack>
        <Title order={1}>{missing ? 'Model not found' : 'The model could not be loaded'}</Title>
        <Alert color={missing ? 'yellow' : 'red'} role="alert">
          {missing
            ? 'There is no model with this address. It may have been deleted, or the link is mistyped.'
            : problemMessage(model.error)}
        </Alert>
        <Anchor component={Link} to="/library">
          Back to the library
        </Anchor>
      </Stack>
    )
  }

  const { data } = model
  const ofRole = (role: ModelFile['role']) => data.files.filter((file) => file.role === role)
  const [parts, images, documents] = [ofRole('part'), ofRole('image'), ofRole('document')]
  const save = (change: Parameters<typeof update.mutateAsync>[0]) => update.mutateAsync(change)
  return (
    <Stack gap="lg">
      <Group justify="space-between" align="flex-start" gap="sm">
        {/* Wide enough for a name; on a phone the delete button wraps below. */}
        <Stack gap={4} miw={0} style={{ flex: '1 1 240px' }}>
          <Anchor component={Link} to="/library" size="sm">
            ← Library
          </Anchor>
          <InlineTextEdit label="Name" value={data.name} onSave={(name) => save({ name })} errorOf={problemMessage}>
            <Title order={1} style={{ overflowWrap: 'break-word', minWidth: 0 }}>
              {data.name}
            </Title>
          </InlineTextEdit>
          <Group gap={6}>
            {data.file_summary.formats.map((format) => (
              <Badge key={format} variant="light">
                {format.toUpperCase()}
              </Badge>
            ))}
            <Text size="sm" c="dimmed">
              {data.file_summary.count} {data.file_summary.count === 1 ? 'file' : 'files'},{' '}
              {formatBytes(data.file_summary.total_size)} · updated {new Date(data.updated_at).toLocaleDateString()}
            </Text>
          </Group>
        </Stack>
        <Group gap="xs">
          {data.files.length > 0 && <SendFilesButton modelId={data.id} modelName={data.name} files={data.files} />}
          <MergeModelsButton modelId={data.id} modelName={data.name} />
          <DeleteModelButton modelId={data.id} name={data.name} fileCount={data.files.length} />
        </Group>
      </Group>

      {data.analysing_files > 0 && <AnalysingNotice files={data.analysing_files} />}

      <Grid gutter="lg">
        <Grid.Col span={{ base: 12, md: 8 }}>
          <ModelViewerPanel files={data.files} analysing={data.analysing_files > 0} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Stack>
            <ThumbnailImage
              kind="models"
              id={data.id}
              available={data.has_thumbnail}
              rendering={data.analysing_files > 0}
              alt={`Cover of ${data.name}`}
              size={200}
            />
            <InlineTextEdit
              label="Description"
              value={data.description}
              multiline
              onSave={(description) => save({ description })}
              errorOf={problemMessage}
            >
              {data.description ? (
                <MarkdownText>{data.description}</MarkdownText>
              ) : (
                <Text c="dimmed" style={{ flex: 1 }}>
                  No description yet.
                </Text>
              )}
            </InlineTextEdit>
            <MakerFields creator={data.creator} sourceUrl={data.source_url} license={data.license} onSave={save} />
            <TagsEditor modelId={data.id} tags={data.tags} />
            <CollectionsEditor modelId={data.id} collections={data.collections} />
            <DownloadPackageButton modelId={data.id} name={data.name} />
          </Stack>
        </Grid.Col>
      </Grid>

      {images.length > 0 && <ImageGallery modelId={data.id} images={images} coverId={data.cover_file_id} />}
      {documents.length > 0 && <DocumentList documents={documents} />}

      <Stack gap="sm" component="section" aria-labelledby="model-files">
        <Title order={2} size="h3" id="model-files">
          Files
        </Title>
        {renderAddFiles?.({ id: data.id, name: data.name })}
        {parts.length > 0 && <FileTree files={parts} actions={renderFileActions} />}
      </Stack>
      {data.files.some((file) => file.format === 'gcode' || file.format === '3mf') && (
        <PrintRunsSection owner={{ kind: 'models', id: data.id }} />
      )}
    </Stack>
  )
}
