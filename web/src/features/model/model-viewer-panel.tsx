import { Alert, Paper, Select, Stack, Text } from '@mantine/core'
import { lazy, Suspense, useEffect, useState } from 'react'
import { problemMessage } from '../../api/problem'
import { LargeMeshView } from './large-mesh-view'
import { LoadingView } from './loading-view'
import { PreviewComingView } from './preview-coming-view'
import { PreviewNotice } from './preview-notice'
import { isViewable, type ModelFile } from './types'
import { type ByteProgress, loadFileBytes } from './use-file-bytes'

// three.js only loads on this page, never with the library.
const MeshViewer = lazy(() => import('./mesh-viewer'))

/**
 * Meshes above this size (bytes) wait for a click before the 3D view fetches them: the view holds
 * the file, its parsed geometry and the GPU's copy at once (a 300 MB STL took a tab to 745 MB),
 * which a phone or a busy laptop should not pay for just by opening the page.
 */
const largeMeshBytes = 50_000_000

/** Meshes of more triangles than this get a preview, rendered in the background after the upload. */
const previewFromTriangles = 200_000

type Download =
  | { status: 'waiting' }
  | { status: 'coming' }
  | { status: 'loading'; progress?: ByteProgress }
  | { status: 'done'; bytes: Uint8Array<ArrayBuffer> }
  | { status: 'failed'; message: string }

/**
 * What the 3D view shows of the file: its preview mesh, the file itself, or a button until asked;
 * `coming`: a preview is being rendered, the view waits for it.
 */
type Shown = 'preview' | 'full' | 'waiting' | 'coming'

const trianglesOf = (file: ModelFile | undefined) => {
  const triangles = (file?.metadata.mesh as { triangles?: unknown } | undefined)?.triangles
  return typeof triangles === 'number' ? triangles : 0
}

/**
 * The 3D view of the model's first STL, 3MF or OBJ file (or the one chosen), with download
 * progress. A large mesh with a preview (made on upload) shows the preview first, with a button
 * for the full detail; one without shows its thumbnail until "Load the 3D view" is pressed. While
 * the model's files are being analysed (`analysing`), a mesh that will have a preview waits for it
 * rather than downloading the whole file.
 */
export function ModelViewerPanel({ files, analysing = false }: { files: ModelFile[]; analysing?: boolean }) {
  const viewable = files.filter(isViewable)
  const [chosenId, setChosenId] = useState<string | null>(null)
  const file = viewable.find((candidate) => candidate.id === chosenId) ?? viewable[0]
  const [download, setDownload] = useState<Download>({ status: 'loading' })
  /** The file whose whole mesh was asked for. */
  const [fullAsked, setFullAsked] = useState<string | null>(null)

  // By id and size: an edit of the model brings new file objects, not new bytes.
  const fileId = file?.id
  const fileSize = file?.size ?? 0
  const previewComing = analysing && trianglesOf(file) > previewFromTriangles
  const shown: Shown =
    fullAsked === fileId
      ? 'full'
      : file?.preview_url
        ? 'preview'
        : previewComing
          ? 'coming'
          : fileSize > largeMeshBytes
            ? 'waiting'
            : 'full'
  useEffect(() => {
    if (!fileId) return
    if (shown === 'waiting' || shown === 'coming') return setDownload({ status: shown })
    const abort = new AbortController()
    setDownload({ status: 'loading' })
    loadFileBytes(
      { id: fileId, size: fileSize },
      (progress) => setDownload({ status: 'loading', progress }),
      abort.signal,
      shown === 'preview' ? 'preview' : 'content',
    ).then(
      (bytes) => setDownload({ status: 'done', bytes }),
      (error: unknown) => {
        if (!abort.signal.aborted) setDownload({ status: 'failed', message: problemMessage(error) })
      },
    )
    return () => abort.abort()
  }, [fileId, fileSize, shown])

  if (!file) {
    return (
      <Paper withBorder p="lg">
        <Text c="dimmed">This model has no STL, 3MF or OBJ file to show in 3D.</Text>
      </Paper>
    )
  }

  return (
    <Stack gap="xs">
      {viewable.length > 1 && (
        <Select
          label="File shown in 3D"
          data={viewable.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
          value={file.id}
          onChange={setChosenId}
          allowDeselect={false}
        />
      )}
      {download.status === 'failed' ? (
        <Alert color="red" title="The file could not be loaded" role="alert">
          {download.message}
        </Alert>
      ) : download.status === 'coming' ? (
        <PreviewComingView file={file} onLoadFull={() => setFullAsked(file.id)} />
      ) : download.status === 'waiting' ? (
        <LargeMeshView file={file} onLoad={() => setFullAsked(file.id)} />
      ) : download.status === 'loading' ? (
        <LoadingView
          name={shown === 'preview' ? `the preview of ${file.name}` : file.name}
          progress={download.progress}
        />
      ) : (
        <Suspense fallback={<LoadingView name={file.name} />}>
          <MeshViewer
            name={file.name}
            // A preview is binary STL whatever the file's format.
            format={shown === 'preview' ? 'stl' : file.format}
            bytes={download.bytes}
          />
        </Suspense>
      )}
      {shown === 'preview' && download.status !== 'failed' && (
        <PreviewNotice file={file} onLoadFull={() => setFullAsked(file.id)} />
      )}
    </Stack>
  )
}
